package dev.punctual.core.dispatch;

import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.notify.RunNotice;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.plan.Occurrences;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.queue.RunSender;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.store.DispatchStore;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Moves SCHEDULED runs into the queue: send (delayed to the due second), then materialize the job's next
 * occurrence (one transaction: the job's pending run and the new run), then mark the sent run QUEUED (a plain
 * write). When that next occurrence is itself due before
 * {@code horizon}, it is dispatched in the same call, so a 10-second interval fires every 10 seconds.
 *
 * <p>Used by the sweeper and by the API (for runs due before the next sweep could reach them). Sending before
 * marking means a crash in between leaves a SCHEDULED run that a later sweep sends again; the executor's claim makes
 * the duplicate message harmless. Marking first would instead risk a QUEUED run with no message.
 */
public final class Dispatcher {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final DispatchStore store;
    private final RunSender queue;
    private final Schedules schedules;
    private final Clock clock;
    private final RunPlanner planner;

    private final RunNotices notices;
    private final int concurrency;
    private final Duration agingStep;

    /**
     * With {@code concurrency} job chains at once ({@link #dispatch}; {@code punctual.dispatch-concurrency}); a run
     * sent again because it has not started ({@link #attend}) goes one lane up for every {@code agingStep} it has
     * waited past its due time ({@link Priority#aged}; zero: no aging).
     */
    public Dispatcher(
            DispatchStore store,
            RunSender queue,
            Schedules schedules,
            Clock clock,
            RunPlanner planner,
            RunNotices notices,
            int concurrency,
            Duration agingStep) {
        this.agingStep = agingStep;
        if (concurrency < 1) {
            throw new IllegalArgumentException("a dispatch needs at least one chain at once");
        }
        this.concurrency = concurrency;
        this.planner = planner;
        this.notices = notices;
        this.store = store;
        this.queue = queue;
        this.schedules = schedules;
        this.clock = clock;
    }

    /**
     * How far ahead a run must be due for its message to go out before its item is written
     * ({@link #sendBeforeWrite}): the message stays invisible that long, while the write that creates the run
     * commits. A sooner run is written first and dispatched after, as usual.
     */
    public static final Duration SEND_FIRST_LEAD = Duration.ofSeconds(2);

    /**
     * Sends the messages of runs that are not written yet, those due within {@code horizon} and at least
     * {@link #SEND_FIRST_LEAD} from now, ten a call; the indexes (into {@code runs}) whose message went out. Each
     * carries its job's firing policy ({@code firing}, by the same index) as a hint, so that the executor claims
     * without reading the job first (its job may not even be written by then). The
     * caller then creates each of those runs QUEUED ({@link dev.punctual.core.run.Transition#ENQUEUE}) as it
     * creates its job, so the mark dispatching writes afterwards is never needed. If that write fails, the message
     * names a run that never comes to exist, and the executor drops it; if it lands late (after the message became
     * visible), the executor finds no run yet and looks again a little later ({@code RunWorker}).
     */
    public Set<Integer> sendBeforeWrite(List<Run> runs, List<FiringPolicy> firing, Instant horizon) {
        Instant now = clock.instant();
        List<Integer> ahead = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            Instant due = runs.get(i).scheduledAt();
            if (!due.isAfter(horizon) && !due.isBefore(now.plus(SEND_FIRST_LEAD))) {
                ahead.add(i);
            }
        }
        Set<Integer> sent = new HashSet<>();
        for (int from = 0; from < ahead.size(); from += RunQueue.MAX_BATCH) {
            List<Integer> chunk = ahead.subList(from, Math.min(ahead.size(), from + RunQueue.MAX_BATCH));
            try {
                queue.sendBatch(
                                chunk.stream()
                                        .map(i -> {
                                            Run r = runs.get(i);
                                            return new RunMessage(
                                                    r.jobId(),
                                                    r.runId(),
                                                    r.scheduledAt(),
                                                    RunMessage.Hint.of(firing.get(i)),
                                                    r.overrides()
                                                            .priorityOr(firing.get(i)
                                                                    .priority()));
                                        })
                                        .toList(),
                                now)
                        .forEach(i -> sent.add(chunk.get(i)));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "sending " + chunk.size() + " runs ahead failed; written first", e);
            }
        }
        return sent;
    }

    public DispatchReport dispatch(List<Run> due, Instant horizon) {
        return dispatch(due, List.of(), horizon, Instant.MAX);
    }

    /**
     * Sends the SCHEDULED runs in {@code due}, and attends to the other index entries whose time has come (see
     * {@link #attend}): both may yield next occurrences due before {@code horizon}, which are sent too. Nothing is
     * sent after {@code deadline}: what is left then stays as it is for a later sweep ({@link
     * DispatchReport#deferred}).
     *
     * <p>Each job's work is one chain, in due order on one thread (a run's send, its job's move to the next
     * occurrence, its mark, then that occurrence's own turn), since each step builds on the job as the last one
     * left it; the chains of different jobs run side by side, {@link #concurrency} at once, earliest first, their
     * messages gathered into batches of ten ({@link SendBatcher}). Their jobs are read beforehand, strongly, a
     * hundred a call. On AWS each call waits on the network: one chain after another was a sweep of 17 runs a
     * second with 8 ms a call modelled (bench dispatch), whatever the fleet.
     */
    public DispatchReport dispatch(
            List<Run> due, List<RunRepository.Attention> attention, Instant horizon, Instant deadline) {
        DispatchReport report = new DispatchReport();
        Map<String, Chain> chains = new LinkedHashMap<>();
        for (Run run :
                due.stream().sorted(Comparator.comparing(Run::scheduledAt)).toList()) {
            Chain c = chains.computeIfAbsent(run.jobId(), Chain::new);
            if (run.state() == RunState.SCHEDULED) {
                c.work.add(run);
            } else {
                c.attend.add(run);
            }
        }
        for (RunRepository.Attention a : attention) {
            chains.computeIfAbsent(a.run().jobId(), Chain::new).attend.add(a.run());
        }
        if (chains.isEmpty()) {
            return report;
        }
        SendBatcher sends = new SendBatcher(queue, clock);
        AtomicReference<Throwable> fatal = new AtomicReference<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Map<String, Optional<Job>> read = readJobs(
                    pool,
                    chains.values().stream()
                            .filter(c -> !c.work.isEmpty())
                            .map(c -> c.jobId)
                            .toList());
            Semaphore running = new Semaphore(concurrency);
            sends.expect(chains.size());
            for (Chain c : chains.values()) {
                c.known = read.get(c.jobId);
                running.acquireUninterruptibly();
                if (fatal.get() != null) {
                    running.release();
                    sends.leave();
                    continue;
                }
                pool.execute(() -> {
                    try {
                        run(c, horizon, deadline, sends, report, fatal);
                    } catch (Throwable t) {
                        fatal.compareAndSet(null, t);
                    } finally {
                        sends.leave();
                        running.release();
                    }
                });
            }
        }
        // What a chain did not handle itself (an Error, the process dying as far as this code can tell, or a
        // RuntimeException outside every step's own handling) ends the whole dispatch, as it would have on one
        // thread: the other chains stopped at their next step, nothing is written after it, and it is thrown.
        Throwable t = fatal.get();
        if (t instanceof Error e) {
            throw e;
        }
        if (t instanceof RuntimeException e) {
            throw e;
        }
        return report;
    }

    /** One job's work in a dispatch, and what it knows of the job. */
    private static final class Chain {
        final String jobId;
        /** Index entries of other states to attend to, then SCHEDULED runs to send, earliest first. */
        final List<Run> attend = new ArrayList<>();

        final PriorityQueue<Run> work = new PriorityQueue<>(Comparator.comparing(Run::scheduledAt));
        /** The job as read strongly before this chain wrote it (null: not read; empty: not found). */
        Optional<Job> known;
        /** The job as this chain's own last write left it: the next occurrence needs no read. */
        Job moved;
        /** The first occurrence its catch-up policy keeps, once computed. */
        final Map<String, Instant> keptFrom = new HashMap<>();

        Chain(String jobId) {
            this.jobId = jobId;
        }
    }

    private void run(
            Chain c,
            Instant horizon,
            Instant deadline,
            SendBatcher sends,
            DispatchReport report,
            AtomicReference<Throwable> fatal) {
        for (Run a : c.attend) {
            if (fatal.get() != null) {
                return;
            }
            if (clock.instant().isAfter(deadline)) {
                report.deferred(a);
                continue;
            }
            // Attending may move the job on: what was read of it before is stale then.
            c.known = null;
            attend(a, report)
                    .filter(next -> !next.scheduledAt().isAfter(horizon))
                    .ifPresent(c.work::add);
        }
        Run run;
        while ((run = c.work.poll()) != null) {
            if (fatal.get() != null) {
                return;
            }
            if (clock.instant().isAfter(deadline)) {
                report.deferred(run);
                continue;
            }
            if (run.scheduledAt().isBefore(clock.instant().minus(CatchUp.MISSED_AFTER))) {
                // Catch-up reads the job itself and may move it on: what this chain knew of it is stale then.
                c.known = null;
                c.moved = null;
                Optional<Run> kept = catchUp(run, c.keptFrom, report);
                if (kept.isEmpty() || kept.get().scheduledAt().isAfter(horizon)) {
                    continue;
                }
                run = kept.get();
            }
            // The job gives the message its firing policy as a hint, so the executor claims without a read of its
            // own (half a read unit an occurrence); the same job then decides the move, whose writes are
            // conditional on what was read.
            Optional<Job> job = c.moved != null ? Optional.of(c.moved) : c.known != null ? c.known : readQuietly(run);
            if (!sends.send(
                    new RunMessage(run.jobId(), run.runId(), run.scheduledAt(), hint(job, run), lane(job, run)))) {
                report.failed(run);
                continue;
            }
            report.count(Count.SENT);
            // The read serves the next step only: that step may move the job on, and a later run of the chain
            // (a backfill's, say) needs the job as it is after that: as this chain wrote it, or read again.
            c.known = null;
            if (fatal.get() != null) {
                // Another chain ended the dispatch: this run's message is out and it stays SCHEDULED, as a sweep
                // that died here would leave it; the next sweep sends it again and the claim absorbs the second.
                return;
            }
            try {
                Moved m = markAndMaterialize(run, job != null ? job : store.job(run.jobId()), report);
                c.moved = m.job();
                m.next().filter(next -> !next.scheduledAt().isAfter(horizon)).ifPresent(c.work::add);
            } catch (RuntimeException e) {
                // The message is out; the run stays SCHEDULED and a later sweep sends it again.
                LOG.log(Level.WARNING, "marking run " + run.jobId() + "/" + run.runId() + " failed", e);
                c.moved = null;
                report.failed(run);
            }
        }
    }

    /** The job of {@code run}, read strongly; null if the read failed (its run is then sent without a hint). */
    private Optional<Job> readQuietly(Run run) {
        try {
            return store.job(run.jobId());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reading job " + run.jobId() + " failed; its run is sent without a hint", e);
            return null;
        }
    }

    /**
     * The jobs of {@code ids}, read strongly, a hundred a call, several calls at once; a job whose read failed is
     * left out (its chain reads it itself).
     */
    private Map<String, Optional<Job>> readJobs(ExecutorService pool, List<String> ids) {
        List<Future<Map<String, Job>>> parts = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += DispatchStore.MAX_JOBS_READ) {
            List<String> part = ids.subList(from, Math.min(ids.size(), from + DispatchStore.MAX_JOBS_READ));
            parts.add(pool.submit(() -> store.jobs(part)));
        }
        Map<String, Optional<Job>> read = new HashMap<>();
        for (int i = 0; i < parts.size(); i++) {
            List<String> part = ids.subList(
                    i * DispatchStore.MAX_JOBS_READ, Math.min(ids.size(), (i + 1) * DispatchStore.MAX_JOBS_READ));
            try {
                Map<String, Job> found = parts.get(i).get();
                part.forEach(id -> read.put(id, Optional.ofNullable(found.get(id))));
            } catch (ExecutionException e) {
                LOG.log(
                        Level.WARNING,
                        "reading " + part.size() + " jobs failed; each is read on its own",
                        e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return read;
    }

    /** The hint of an active job's run (null: not read, not active, or its runs must not overlap). */
    private static RunMessage.Hint hint(Optional<Job> job, Run run) {
        if (job == null) {
            return null;
        }
        return job.filter(j -> j.state() == JobState.ACTIVE && j.id().equals(run.jobId()))
                .map(j -> RunMessage.Hint.of(j.firing()))
                .orElse(null);
    }

    /** The lane of {@code run}: its own (a trigger's or backfill's), else its job's, else normal (job not read). */
    private static Priority lane(Optional<Job> job, Run run) {
        Priority jobs = job == null
                ? Priority.NORMAL
                : job.map(j -> j.firing().priority()).orElse(Priority.NORMAL);
        return run.overrides().priorityOr(jobs);
    }

    /** What a run's succession left: its job's next occurrence if this write made it, and the job as written. */
    private record Moved(Optional<Run> next, Job job) {}

    /**
     * Moves the job ({@code job}, as read strongly or as this chain wrote it) from the sent run to its next
     * occurrence, then marks the run QUEUED; returns that occurrence if this write made it, and the job as written.
     *
     * <p>The mark is a write of its own after the job's transaction, not one of its items: a transaction pays twice
     * for every item, indexes included, and the mark (whose due-index entry moves) is the dearest of the three. The
     * order is what makes the split safe. Stopped between the two, the run is still SCHEDULED but no longer its
     * job's pending run, and its successor is written: the next sweep sends it again and only marks it (the
     * executor's claim makes the second message harmless), and nothing is late. Marked first, a stop would leave a
     * QUEUED pending run with no successor until its entry's attention time, minutes later.
     */
    private Moved markAndMaterialize(Run run, Optional<Job> job, DispatchReport report) {
        Instant now = clock.instant();
        Written w = succession(run, job, now, false).map(this::write).orElse(null);
        if (w != null && w.outcome() == DispatchStore.Outcome.JOB_CHANGED) {
            // The job changed since it was read (an update, a pause, another sweeper's move): read it again.
            w = succession(run, store.job(run.jobId()), now, false)
                    .map(this::write)
                    .orElse(null);
        }
        if (w != null && w.outcome() == DispatchStore.Outcome.CONFLICT) {
            // Still held by other transactions after the retries: the run stays SCHEDULED for a later sweep.
            report.failed(run);
            return new Moved(Optional.empty(), null);
        }
        Optional<Run> next = Optional.empty();
        Job after = null;
        if (w != null && w.outcome() == DispatchStore.Outcome.WON) {
            after = w.succession().jobAfter();
            next = w.succession().next();
            next.ifPresent(n -> report.count(Count.MATERIALIZED));
        }
        // Lost when an executor claimed the run straight from SCHEDULED, or another sweeper marked it first.
        if (store.apply(Change.of(Transition.MARK_QUEUED, run.jobId(), run.runId(), now))) {
            report.count(Count.MARKED);
        }
        return new Moved(next, after);
    }

    /**
     * An index entry that is not a SCHEDULED run, whose attention time has come. First the job must have moved on
     * to its next occurrence (a run claimed straight from SCHEDULED was never marked, so nobody wrote its
     * successor). Then, by the run's state now:
     * <ul>
     * <li>QUEUED or FAILED this late: its message is gone (a crash between write and send, an expired message):
     *     send it again;</li>
     * <li>RUNNING with an expired lease: its executor died and no message is coming back: send it again, and the
     *     next claim takes over with attempt + 1;</li>
     * <li>RUNNING with a live lease: look again after the lease plus the requeue timeout;</li>
     * <li>finished: leave the index.</li>
     * </ul>
     * A duplicate message sent here is harmless: the claim lets at most one attempt run.
     */
    private Optional<Run> attend(Run seen, DispatchReport report) {
        try {
            Optional<Run> found = store.run(seen.jobId(), seen.runId());
            if (found.isEmpty()) {
                return Optional.empty();
            }
            Run run = found.get();
            if (run.state() == RunState.SCHEDULED) {
                // The index lagged; the base item is still SCHEDULED: send it like any other.
                return Optional.of(run);
            }
            Optional<Run> next = Optional.empty();
            Optional<Job> job = store.job(run.jobId());
            Optional<Succession> succession = succession(run, job, clock.instant(), false);
            if (succession.isPresent()) {
                Written w = write(succession.get());
                if (w.outcome() == DispatchStore.Outcome.CONFLICT) {
                    report.failed(run);
                    return Optional.empty();
                }
                if (w.outcome() == DispatchStore.Outcome.WON) {
                    report.count(Count.MATERIALIZED);
                    next = w.succession().next();
                }
            }
            Instant now = clock.instant();
            switch (run.state()) {
                case SUCCEEDED, DEAD, CANCELLED, SKIPPED ->
                    store.apply(Change.of(Transition.UNINDEX, run.jobId(), run.runId(), now));
                case QUEUED, FAILED -> resend(run, lane(job, run), now, report);
                case RUNNING -> {
                    if (run.leaseExpiry() == null || run.leaseExpiry().isBefore(now)) {
                        resend(run, lane(job, run), now, report);
                    } else {
                        store.apply(Change.of(Transition.LOOK_AFTER_LEASE, run, now));
                    }
                }
                default -> {}
            }
            return next;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "attending to run " + seen.jobId() + "/" + seen.runId() + " failed", e);
            report.failed(seen);
            return Optional.empty();
        }
    }

    /**
     * Sends a run that has not started again (its message lost, or still waiting behind others): into a lane up for
     * every aging step it has waited past its due time. Its first message may still be in its first lane; whichever
     * is received first claims the run, and the other finds it taken.
     */
    private void resend(Run run, Priority lane, Instant now, DispatchReport report) {
        Priority aged = lane.aged(Duration.between(run.scheduledAt(), now), agingStep);
        Set<Integer> sent = queue.sendBatch(
                List.of(new RunMessage(run.jobId(), run.runId(), run.scheduledAt(), null, aged)), clock.instant());
        if (sent.isEmpty()) {
            report.failed(run);
            return;
        }
        LOG.log(
                Level.INFO,
                "re-sent stuck run " + run.jobId() + "/" + run.runId() + " (" + run.state() + ", attempt "
                        + run.attempt() + ", lane " + aged.label() + ")");
        report.count(Count.RESENT);
        store.apply(Change.of(Transition.RESEND, run, now));
    }

    /**
     * Writes a succession. If it loses because its next occurrence already has a run (a backfill made it), the job
     * moves on to the first occurrence that has none, in a second try.
     */
    private Written write(Succession s) {
        DispatchStore.Outcome o = s.write(store);
        if (o == DispatchStore.Outcome.NEXT_TAKEN) {
            Optional<Succession> past =
                    succession(s.current(), store.job(s.current().jobId()), clock.instant(), true);
            if (past.isPresent()) {
                return new Written(past.get(), past.get().write(store));
            }
        }
        return new Written(s, o);
    }

    private record Written(Succession succession, DispatchStore.Outcome outcome) {}

    /**
     * The writes that move a job ({@code job}, as read strongly) from {@code run} to its next occurrence (or
     * complete it), when {@code run} is the job's pending run; empty for one-off runs and jobs that are gone or
     * already moved on. With {@code skipExisting}, past occurrences that already have a run are stepped over.
     */
    private Optional<Succession> succession(Run run, Optional<Job> job, Instant now, boolean skipExisting) {
        if (job.isEmpty()
                || job.get().state() != JobState.ACTIVE
                || !run.runId().equals(job.get().pendingRunId())) {
            return Optional.empty();
        }
        Job j = job.get();
        Schedule schedule = schedules.parse(j.schedule(), j.createdAt(), "schedule");
        Optional<Instant> at = Occurrences.firstFree(
                schedule,
                schedule.next(run.occurrence()),
                t -> skipExisting && store.run(j.id(), RunIds.forOccurrence(t)).isPresent());
        Optional<Run> next = at.map(t -> planner.plan(j, t, now));
        return Optional.of(new Succession(run, j, next, now));
    }

    /** A move of {@code job} from {@code current} to {@code next}, and the job as it leaves it. */
    private record Succession(Run current, Job job, Optional<Run> next, Instant now) {
        DispatchStore.Outcome write(DispatchStore store) {
            return store.advance(job, current, next, now);
        }

        Job jobAfter() {
            return job.toBuilder()
                    .state(next.isPresent() ? job.state() : JobState.COMPLETED)
                    .pendingRunId(next.map(Run::runId).orElse(null))
                    .nextRunAt(next.map(Run::scheduledAt).orElse(null))
                    .updatedAt(now)
                    .build();
        }
    }

    /**
     * A SCHEDULED run found late (due more than {@link CatchUp#MISSED_AFTER} ago: the scheduler could not dispatch
     * it in time). If it is its job's pending run of a recurring schedule, the job's catch-up policy decides which of
     * the occurrences missed since run late: {@code skip} none, {@code latest} the most recent, {@code all} each,
     * the most recent {@code maxRuns}; none older than {@code maxAge}. When the policy leaves this run out, it
     * becomes SKIPPED (its error counts what was skipped) and, in the same transaction, the job moves on to the
     * first occurrence the policy keeps, or to its first future one: that run is returned to be sent instead. Other
     * runs (one-off kinds, catch-up and backfill runs, triggers) are sent as they are.
     */
    private Optional<Run> catchUp(Run run, Map<String, Instant> keptFrom, DispatchReport report) {
        Instant kept0 = keptFrom.get(run.jobId());
        if (kept0 != null && !run.occurrence().isBefore(kept0)) {
            return Optional.of(run);
        }
        try {
            Optional<Job> found = store.job(run.jobId());
            if (found.isEmpty()
                    || found.get().state() != JobState.ACTIVE
                    || !run.runId().equals(found.get().pendingRunId())) {
                return Optional.of(run);
            }
            Job job = found.get();
            Schedule schedule = schedules.parse(job.schedule(), job.createdAt(), "schedule");
            if (schedule instanceof Schedule.Now || schedule instanceof Schedule.Once) {
                return Optional.of(run);
            }
            Instant now = clock.instant();
            CatchUp policy = job.firing().catchUp();
            // The missed occurrences run from the run's own; the policy keeps some, or none and the first one
            // that is not missed.
            Occurrences.CatchUpSelection missed =
                    Occurrences.catchUp(schedule, policy, run.occurrence(), now.minus(CatchUp.MISSED_AFTER), now);
            List<Instant> kept = missed.kept();
            Optional<Instant> target = kept.isEmpty() ? missed.after() : Optional.of(kept.getFirst());
            if (target.isPresent() && target.get().equals(run.occurrence())) {
                keptFrom.put(run.jobId(), run.occurrence());
                return Optional.of(run);
            }
            // Left out: move the job past it to the target, skipping occurrences that already have a run.
            target = Occurrences.firstFree(schedule, target, t -> store.occupied(job.id(), RunIds.forOccurrence(t)));
            Optional<Run> next = target.map(at -> planner.plan(job, at, now));
            String why = "missed: not run by catchUp " + policy.mode().wire() + " (maxAge " + policy.maxAge()
                    + ", maxRuns " + policy.maxRuns() + "); occurrences from " + run.occurrence() + " up to "
                    + next.map(r -> r.occurrence().toString()).orElse("the end of the schedule")
                    + " not run"
                    + (policy.mode() == CatchUp.Mode.SKIP
                            ? ""
                            : " (" + missed.count() + " within maxAge, " + kept.size() + " kept)");
            if (store.skipAndAdvance(job, run, why, next, now) != DispatchStore.Outcome.WON) {
                // The job or run moved on meanwhile (another sweeper, a delete, a pause): nothing to send from here.
                return Optional.empty();
            }
            // Published with the run as read (its tenant, due time and attempt); the write fenced on its state only.
            RunNotice.of(Change.of(Transition.SKIP_MISSED, run, now).withError(why), job, SWEEPER)
                    .ifPresent(notices::publish);
            report.count(Count.SKIPPED);
            LOG.log(Level.INFO, "job " + job.id() + ": " + why);
            next.ifPresent(n -> {
                report.count(Count.MATERIALIZED);
                if (!kept.isEmpty()) {
                    keptFrom.put(job.id(), n.occurrence());
                }
            });
            return next;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "catch-up of " + run.jobId() + "/" + run.runId() + " failed", e);
            report.failed(run);
            return Optional.empty();
        }
    }

    /** Outcomes the dispatcher writes (a run its job's catch-up leaves out) are published as by {@value}. */
    public static final String SWEEPER = "sweeper";

    /** The job, read eventually consistently: for a notice of an outcome written elsewhere (a dead letter). */
    public Optional<Job> job(String jobId) {
        return store.jobSeen(jobId);
    }

    /** Where the outcomes this dispatcher writes are published. */
    public RunNotices notices() {
        return notices;
    }

    private enum Count {
        SENT,
        MARKED,
        MATERIALIZED,
        RESENT,
        SKIPPED
    }

    /**
     * What one dispatch did, counted by its chains as they go (so under its lock); read once the dispatch returned.
     * Failed and deferred runs stay as they were for a later sweep.
     */
    public static final class DispatchReport {
        public int sent;
        public int marked;
        public int materialized;
        /** Stuck runs sent again: QUEUED/FAILED whose message was lost, RUNNING whose executor died. */
        public int resent;
        /** Late pending runs left out by their job's catch-up policy (now SKIPPED). */
        public int skipped;

        public final List<Run> failed = new ArrayList<>();
        /** Left untouched for a later sweep: the deadline came before their turn. */
        public final List<Run> deferred = new ArrayList<>();

        synchronized void count(Count c) {
            switch (c) {
                case SENT -> sent++;
                case MARKED -> marked++;
                case MATERIALIZED -> materialized++;
                case RESENT -> resent++;
                case SKIPPED -> skipped++;
            }
        }

        synchronized void failed(Run run) {
            failed.add(run);
        }

        synchronized void deferred(Run run) {
            deferred.add(run);
        }
    }
}
