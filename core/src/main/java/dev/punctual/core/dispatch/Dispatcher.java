package dev.punctual.core.dispatch;

import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.job.Job;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.queue.RunSender;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.store.DispatchStore;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 *
 * <p>Its parts: one {@link Chain} a job, worked through by {@link ChainRunner}, their messages batched by
 * {@link SendBatcher}; their jobs read by {@link JobReads}; the move to the next occurrence and the mark by
 * {@link Successions}; late runs by {@link LateRuns} (catch-up), the index's other entries by {@link StuckRuns}.
 */
public final class Dispatcher {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final DispatchStore store;
    private final RunSender queue;
    private final Clock clock;

    private final RunNotices notices;
    private final int concurrency;
    private final JobReads reads;
    private final ChainRunner runner;

    /**
     * With {@code concurrency} job chains at once ({@link #dispatch}; {@code punctual.dispatch-concurrency}); a run
     * sent again because it has not started ({@link StuckRuns#attend}) goes one lane up for every {@code agingStep}
     * it has waited past its due time ({@link Priority#aged}; zero: no aging).
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
        if (concurrency < 1) {
            throw new IllegalArgumentException("a dispatch needs at least one chain at once");
        }
        this.concurrency = concurrency;
        this.notices = notices;
        this.store = store;
        this.queue = queue;
        this.clock = clock;
        this.reads = new JobReads(store);
        Successions successions = new Successions(store, schedules, clock, planner);
        this.runner = new ChainRunner(
                store,
                clock,
                reads,
                new StuckRuns(store, queue, clock, agingStep, successions),
                new LateRuns(store, schedules, clock, planner, notices),
                successions);
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
     * {@link StuckRuns#attend}): both may yield next occurrences due before {@code horizon}, which are sent too.
     * Nothing is sent after {@code deadline}: what is left then stays as it is for a later sweep ({@link
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
            Map<String, Optional<Job>> read = reads.readJobs(
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
                        runner.run(c, horizon, deadline, sends, report, fatal);
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

    enum Count {
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
