package dev.punctual.core.dispatch;

import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.Schedules;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * Moves SCHEDULED runs into the queue: send (delayed to the due second), then mark QUEUED and, in the same
 * transaction, materialize the job's next occurrence. When that next occurrence is itself due before
 * {@code horizon}, it is dispatched in the same call, so a 10-second interval fires every 10 seconds.
 *
 * <p>Used by the sweeper and by the API (for runs due before the next sweep could reach them). Sending before
 * marking means a crash in between leaves a SCHEDULED run that a later sweep sends again; the executor's claim makes
 * the duplicate message harmless. Marking first would instead risk a QUEUED run with no message.
 */
public final class Dispatcher {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final RunRepository runs;
    private final JobRepository jobs;
    private final RunQueue queue;
    private final Transactions tx;
    private final Schedules schedules;
    private final Settings settings;
    private final Clock clock;

    public Dispatcher(RunRepository runs, JobRepository jobs, RunQueue queue, Transactions tx, Schedules schedules,
                      Settings settings, Clock clock) {
        this.runs = runs;
        this.jobs = jobs;
        this.queue = queue;
        this.tx = tx;
        this.schedules = schedules;
        this.settings = settings;
        this.clock = clock;
    }

    public DispatchReport dispatch(List<Run> due, Instant horizon) {
        return dispatch(due, List.of(), horizon);
    }

    /**
     * Sends the SCHEDULED runs in {@code due}, and attends to the other index entries whose time has come (see
     * {@link #attend}): both may yield next occurrences due before {@code horizon}, which are sent too.
     */
    public DispatchReport dispatch(List<Run> due, List<RunRepository.Attention> attention, Instant horizon) {
        DispatchReport report = new DispatchReport();
        Deque<Run> work = new ArrayDeque<>();
        for (Run run : due.stream().sorted(Comparator.comparing(Run::scheduledAt)).toList()) {
            if (run.state() == RunState.SCHEDULED) {
                work.add(run);
            } else {
                attend(run, report).filter(next -> !next.scheduledAt().isAfter(horizon)).ifPresent(work::add);
            }
        }
        for (RunRepository.Attention a : attention) {
            attend(a.run(), report).filter(next -> !next.scheduledAt().isAfter(horizon)).ifPresent(work::add);
        }
        while (!work.isEmpty()) {
            List<Run> batch = new ArrayList<>();
            while (!work.isEmpty() && batch.size() < RunQueue.MAX_BATCH) {
                batch.add(work.poll());
            }
            Set<Integer> sent;
            try {
                sent = queue.sendBatch(batch.stream()
                        .map(r -> new RunMessage(r.jobId(), r.runId(), r.scheduledAt())).toList(), clock.instant());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "sending a batch of " + batch.size() + " runs failed; a later sweep retries", e);
                sent = Set.of();
            }
            for (int i = 0; i < batch.size(); i++) {
                Run run = batch.get(i);
                if (!sent.contains(i)) {
                    report.failed(run);
                    continue;
                }
                report.sent++;
                try {
                    markAndMaterialize(run, report).filter(next -> !next.scheduledAt().isAfter(horizon))
                            .ifPresent(work::add);
                } catch (RuntimeException e) {
                    // The message is out; the run stays SCHEDULED and a later sweep sends it again.
                    LOG.log(Level.WARNING, "marking run " + run.jobId() + "/" + run.runId() + " failed", e);
                    report.failed(run);
                }
            }
        }
        return report;
    }

    /** Marks the sent run QUEUED and writes the job's next occurrence; returns that occurrence if this call made it. */
    private Optional<Run> markAndMaterialize(Run run, DispatchReport report) {
        Instant now = clock.instant();
        TransactWriteItem mark = runs.markQueued(run.jobId(), run.runId(), now);
        Optional<Succession> succession = succession(run, now);
        if (succession.isEmpty()) {
            // A one-off run (or its job is gone or already moved on): just mark it.
            if (tx.writeRetryingConflicts(List.of(mark)).won()) {
                report.marked++;
            }
            return Optional.empty();
        }
        Succession s = succession.get();
        List<TransactWriteItem> all = new ArrayList<>();
        all.add(mark);
        all.addAll(s.items());
        if (tx.writeRetryingConflicts(all).won()) {
            report.marked++;
            s.next().ifPresent(n -> report.materialized++);
            return s.next();
        }
        // Lost: an executor may have claimed the run straight from SCHEDULED, or another sweeper got there first.
        // Do the two halves separately; each is still conditional, so at most one writer materializes.
        if (tx.writeRetryingConflicts(List.of(mark)).won()) {
            report.marked++;
        }
        return materialize(s, report);
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
            Optional<Run> found = runs.get(seen.jobId(), seen.runId());
            if (found.isEmpty()) {
                return Optional.empty();
            }
            Run run = found.get();
            if (run.state() == RunState.SCHEDULED) {
                // The index lagged; the base item is still SCHEDULED: send it like any other.
                return Optional.of(run);
            }
            Optional<Run> next = Optional.empty();
            Optional<Succession> succession = succession(run, clock.instant());
            if (succession.isPresent()) {
                Transactions.Outcome o = tx.writeRetryingConflicts(succession.get().items());
                if (o.conflictOnly()) {
                    report.failed(run);
                    return Optional.empty();
                }
                if (o.won()) {
                    report.materialized++;
                    next = succession.get().next();
                }
            }
            Instant now = clock.instant();
            Instant again = now.plus(settings.lookahead()).plus(settings.requeueAfter());
            switch (run.state()) {
                case SUCCEEDED, DEAD, CANCELLED -> runs.unindex(run.jobId(), run.runId());
                case QUEUED, FAILED -> resend(run, again, report);
                case RUNNING -> {
                    if (run.leaseExpiry() == null || run.leaseExpiry().isBefore(now)) {
                        resend(run, again, report);
                    } else {
                        runs.reindex(run.jobId(), run.runId(), RunState.RUNNING, run.attempt(),
                                run.leaseExpiry().plus(settings.requeueAfter()));
                    }
                }
                default -> {
                }
            }
            return next;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "attending to run " + seen.jobId() + "/" + seen.runId() + " failed", e);
            report.failed(seen);
            return Optional.empty();
        }
    }

    private void resend(Run run, Instant again, DispatchReport report) {
        Set<Integer> sent = queue.sendBatch(List.of(new RunMessage(run.jobId(), run.runId(), run.scheduledAt())),
                clock.instant());
        if (sent.isEmpty()) {
            report.failed(run);
            return;
        }
        LOG.log(Level.INFO, "re-sent stuck run " + run.jobId() + "/" + run.runId() + " (" + run.state()
                + ", attempt " + run.attempt() + ")");
        report.resent++;
        runs.reindex(run.jobId(), run.runId(), run.state(), run.attempt(), again);
    }

    private Optional<Run> materialize(Succession s, DispatchReport report) {
        if (tx.writeRetryingConflicts(s.items()).won()) {
            s.next().ifPresent(n -> report.materialized++);
            return s.next();
        }
        return Optional.empty();
    }

    /**
     * The writes that move a job from {@code run} to its next occurrence (or complete it), when {@code run} is the
     * job's pending run; empty for one-off runs and jobs that are gone or already moved on.
     */
    private Optional<Succession> succession(Run run, Instant now) {
        Optional<Job> job = jobs.get(run.jobId());
        if (job.isEmpty() || job.get().state() != JobState.ACTIVE || !run.runId().equals(job.get().pendingRunId())) {
            return Optional.empty();
        }
        Job j = job.get();
        Schedule schedule = schedules.parse(j.schedule(), j.createdAt(), "schedule");
        Optional<Run> next = schedule.next(run.scheduledAt()).map(at ->
                Run.scheduled(j.id(), RunIds.forOccurrence(at), j.owner(), at, j.maxAttempts(), now));
        List<TransactWriteItem> items = new ArrayList<>();
        items.add(jobs.advancePending(j.id(), run.runId(), next.map(Run::runId).orElse(null),
                next.map(Run::scheduledAt).orElse(null), now));
        next.ifPresent(n -> items.add(runs.insertScheduled(n)));
        return Optional.of(new Succession(next, items));
    }

    private record Succession(Optional<Run> next, List<TransactWriteItem> items) {
    }

    /** What one dispatch did. Failed runs stay SCHEDULED for a later sweep. */
    public static final class DispatchReport {
        public int sent;
        public int marked;
        public int materialized;
        /** Stuck runs sent again: QUEUED/FAILED whose message was lost, RUNNING whose executor died. */
        public int resent;
        public final List<Run> failed = new ArrayList<>();

        void failed(Run run) {
            failed.add(run);
        }
    }
}
