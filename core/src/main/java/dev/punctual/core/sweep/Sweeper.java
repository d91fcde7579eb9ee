package dev.punctual.core.sweep;

import dev.punctual.core.config.Sweep;
import dev.punctual.core.dispatch.Dispatcher;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.notify.RunNotice;
import dev.punctual.core.queue.DeadLetterQueue;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.queue.RunQueues;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.run.WatchRepository;
import dev.punctual.core.time.TimeBuckets;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One sweep: from the persisted watermark up to now + lookahead, query every shard of every minute bucket of the
 * due index (in parallel; nothing scans), dispatch what is due, then advance the watermark over the buckets that
 * were fully handled.
 *
 * <p>The watermark never passes {@code now − settle}: buckets in the recent past and the lookahead window are
 * queried again by every sweep, so a run whose index entry lagged, or whose send failed, is found next time. Two
 * sweeps at once are safe: both may send a run (a duplicate message), but only one marks it and only one
 * materializes its next occurrence, and the executor's claim runs it once.
 */
public final class Sweeper {
    private static final System.Logger LOG = System.getLogger(Sweeper.class.getName());

    private final RunRepository runs;
    private final WatermarkRepository watermarks;
    private final Dispatcher dispatcher;
    private final TimeBuckets buckets;
    private final Sweep settings;
    private final Clock clock;
    private final List<DeadLetterQueue> deadLetters;
    private final RunQueues queues;
    private final Meters meters;
    private final WatchChecks watchChecks;

    /**
     * With {@code deadLetters} (empty: none), each sweep also reconciles the lanes' dead-letter queues; with
     * {@code queues} (null: none), it samples each lane's depth into {@code meters}, which it flushes at its end.
     * Jobs' watches found due are checked by {@code watchChecks}.
     */
    public Sweeper(
            RunRepository runs,
            WatermarkRepository watermarks,
            Dispatcher dispatcher,
            TimeBuckets buckets,
            Sweep settings,
            Clock clock,
            List<DeadLetterQueue> deadLetters,
            RunQueues queues,
            Meters meters,
            WatchChecks watchChecks) {
        this.watchChecks = watchChecks;
        this.deadLetters = deadLetters;
        this.queues = queues;
        this.meters = meters;
        this.runs = runs;
        this.watermarks = watermarks;
        this.dispatcher = dispatcher;
        this.buckets = buckets;
        this.settings = settings;
        this.clock = clock;
    }

    /** A sweep of every shard with no deadline of its own: it sends everything it finds (tests, the local runner). */
    public SweepReport sweep() {
        return sweep(Instant.MAX, Worker.ALL);
    }

    /**
     * Which shards of the due index a sweep covers: those whose number is {@code index} modulo {@code of}. Worker 0
     * also does what is done once a sweep for all (the dead-letter queue, the queue's depth).
     */
    public record Worker(int index, int of) {
        public static final Worker ALL = new Worker(0, 1);

        public Worker {
            if (of < 1 || index < 0 || index >= of) {
                throw new IllegalArgumentException(
                        "a sweep worker is 0 to " + (of - 1) + " of " + of + ", not " + index);
            }
        }

        boolean covers(int shard) {
            return shard % of == index;
        }
    }

    /**
     * A sweep of {@code worker}'s shards that sends nothing after {@code deadline} (on AWS: the Lambda's end, less
     * what the sweep does after sending): the runs it had no time for stay SCHEDULED, their buckets below their
     * shard's watermark, for the next sweep.
     */
    public SweepReport sweep(Instant deadline, Worker worker) {
        if (worker.of() > buckets.shards()) {
            throw new IllegalArgumentException(
                    worker.of() + " sweep workers for " + buckets.shards() + " shards: some would have none");
        }
        try {
            return sweepOnce(deadline, worker);
        } finally {
            // Within the sweep: a Lambda's process may be frozen as soon as its invocation returns.
            meters.flush();
        }
    }

    private SweepReport sweepOnce(Instant deadline, Worker worker) {
        Instant now = clock.instant();
        Instant horizon = now.plus(settings.lookahead());
        Instant settled = TimeBuckets.bucketOf(now.minus(settings.settle()));
        Instant oldest = TimeBuckets.bucketOf(now.minus(settings.maxBacklog()));
        Instant last = TimeBuckets.bucketOf(horizon);
        List<Integer> shards = new ArrayList<>();
        for (int shard = 0; shard < buckets.shards(); shard++) {
            if (worker.covers(shard)) {
                shards.add(shard);
            }
        }
        WatermarkRepository.Marks stored = watermarks.get(shards);
        Map<Integer, Instant> from = new HashMap<>();
        for (int shard : shards) {
            Instant f = stored.from().getOrDefault(shard, settled);
            if (f.isBefore(oldest)) {
                LOG.log(
                        Level.WARNING,
                        "shard " + shard + "'s watermark " + f + " is older than the sweep backlog limit; runs due"
                                + " before " + oldest + " are not swept");
                f = oldest;
            }
            from.put(shard, f);
        }
        // Per shard, the buckets not fully handled: the shard's watermark must not pass the first of them.
        Map<Integer, TreeSet<Instant>> unhandled = new HashMap<>();
        shards.forEach(shard -> unhandled.put(shard, new TreeSet<>()));
        List<WatchRepository.Watch> watches = new ArrayList<>();
        List<RunRepository.Attention> found = query(from, last, horizon, unhandled, watches);
        // SCHEDULED runs are sent ahead of time (delayed to their due second); every other entry only once its
        // attention time has come. An entry left for later sits in a bucket after now, above the watermark.
        List<Run> due = found.stream()
                .filter(a -> a.run().state() == RunState.SCHEDULED)
                .map(RunRepository.Attention::run)
                .toList();
        List<RunRepository.Attention> attend = found.stream()
                .filter(a -> a.run().state() != RunState.SCHEDULED && !a.at().isAfter(now))
                .toList();
        Dispatcher.DispatchReport d = dispatcher.dispatch(due, attend, horizon, deadline);
        Set<Run> left = new HashSet<>(d.failed);
        left.addAll(d.deferred);
        for (Run r : left) {
            unhandledOf(unhandled, r).add(TimeBuckets.bucketOf(r.scheduledAt()));
        }
        found.stream()
                .filter(a -> left.contains(a.run()))
                .forEach(a -> unhandledOf(unhandled, a.run()).add(TimeBuckets.bucketOf(a.at())));
        if (!d.deferred.isEmpty()) {
            LOG.log(
                    Level.WARNING,
                    d.deferred.size() + " runs left for the next sweep: its deadline " + deadline + " came first");
        }

        int overdue = watchChecks.check(
                watches.stream()
                        .filter(w -> !w.window().deadline().isAfter(now))
                        .toList(),
                now,
                // A watch given back holds its bucket in every shard of this worker's: which shard it came from is
                // not kept, and holding one bucket more only means it is read again.
                watchDeadline -> unhandled.values().forEach(u -> u.add(TimeBuckets.bucketOf(watchDeadline))));

        Map<Integer, Instant> targets = new HashMap<>();
        for (int shard : shards) {
            Instant target = settled;
            TreeSet<Instant> u = unhandled.get(shard);
            if (!u.isEmpty() && u.first().isBefore(target)) {
                target = u.first();
            }
            // A shard without a mark of its own has it written where it stands (target is never after from then):
            // with none at all, every later sweep would start from its own "now − settle", and an outage would be
            // skipped rather than caught up; with a start borrowed from the other shards, that start would rise
            // with their marks past this shard's unhandled runs.
            if (!stored.own().contains(shard) || target.isAfter(from.get(shard))) {
                targets.put(shard, target);
            }
        }
        Set<Integer> advanced = watermarks.advance(targets, now);
        Instant lowest = null;
        Instant advancedTo = null;
        for (int shard : shards) {
            Instant mark = advanced.contains(shard) ? targets.get(shard) : from.get(shard);
            lowest = lowest == null || from.get(shard).isBefore(lowest) ? from.get(shard) : lowest;
            advancedTo = advancedTo == null || mark.isBefore(advancedTo) ? mark : advancedTo;
        }
        if (worker.index() == 0) {
            for (DeadLetterQueue dlq : deadLetters) {
                try {
                    reconcileDeadLetters(dlq);
                } catch (RuntimeException e) {
                    LOG.log(
                            Level.WARNING,
                            "reconciling the dead-letter queue " + dlq.name() + " failed; it is retried next sweep",
                            e);
                }
            }
            sampleQueue();
        }
        return new SweepReport(
                lowest,
                horizon,
                (int) Duration.between(lowest, last).toMinutes() + 1,
                due.size(),
                d.sent,
                d.marked,
                d.materialized,
                d.failed.size(),
                d.deferred.size(),
                d.resent,
                overdue,
                advancedTo);
    }

    private TreeSet<Instant> unhandledOf(Map<Integer, TreeSet<Instant>> unhandled, Run run) {
        // A run found in this sweep is in one of its shards; a next occurrence written meanwhile may not be, and
        // then it is not this worker's to hold back.
        return unhandled.getOrDefault(buckets.shardOf(run.jobId(), run.runId()), new TreeSet<>());
    }

    private List<RunRepository.Attention> query(
            Map<Integer, Instant> from,
            Instant last,
            Instant horizon,
            Map<Integer, TreeSet<Instant>> unhandled,
            List<WatchRepository.Watch> watches) {
        record Part(Instant bucket, int shard, Future<RunRepository.Entries> result) {}
        List<Part> parts = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Map.Entry<Integer, Instant> e : from.entrySet()) {
                int shard = e.getKey();
                for (Instant b = e.getValue(); !b.isAfter(last); b = b.plus(Duration.ofMinutes(1))) {
                    String partition = TimeBuckets.partition(b, shard);
                    parts.add(new Part(b, shard, pool.submit(() -> runs.entriesIn(partition, horizon))));
                }
            }
            List<RunRepository.Attention> due = new ArrayList<>();
            for (Part p : parts) {
                try {
                    RunRepository.Entries entries = p.result().get();
                    due.addAll(entries.runs());
                    watches.addAll(entries.watches());
                } catch (ExecutionException e) {
                    LOG.log(
                            Level.WARNING,
                            "querying bucket " + p.bucket() + " shard " + p.shard() + " failed; it is retried next"
                                    + " sweep",
                            e.getCause());
                    unhandled.get(p.shard()).add(p.bucket());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    unhandled.get(p.shard()).add(p.bucket());
                }
            }
            return due;
        }
    }

    /** Each lane's queue depth, once a sweep (once a minute on AWS): a failed sample is only logged. */
    private void sampleQueue() {
        if (queues == null) {
            return;
        }
        for (Priority lane : Priority.values()) {
            try {
                RunQueue.Depth d = queues.lane(lane).depth();
                meters.queueDepth(lane.label(), d.visible(), d.delayed(), d.inFlight());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "sampling the " + lane.label() + " run queue's depth failed", e);
            }
        }
    }

    /** Messages read from the dead-letter queue per sweep. */
    public static final int DEAD_LETTER_BATCHES = 5;

    /**
     * Drains up to {@link #DEAD_LETTER_BATCHES} × 10 messages of each lane's dead-letter queue. A message
     * whose run is finished (or gone) is deleted; one whose run still waits for it (QUEUED, FAILED, or RUNNING
     * under an expired lease) marks the run DEAD, conditional on the state and attempt read, then is deleted; a
     * SCHEDULED run is left to the due index, which sends it again; a body that is not a run message is logged
     * and deleted. A message whose run moved on meanwhile stays, and is looked at again next sweep.
     *
     * @return how many runs were marked DEAD
     */
    public int reconcileDeadLetters() {
        int marked = 0;
        for (DeadLetterQueue dlq : deadLetters) {
            marked += reconcileDeadLetters(dlq);
        }
        return marked;
    }

    private int reconcileDeadLetters(DeadLetterQueue deadLetters) {
        int marked = 0;
        for (int batch = 0; batch < DEAD_LETTER_BATCHES; batch++) {
            List<Delivery> messages = deadLetters.receive(10, 60);
            if (messages.isEmpty()) {
                break;
            }
            for (var message : messages) {
                RunMessage m;
                try {
                    m = RunMessage.decode(message.body());
                } catch (IllegalArgumentException poison) {
                    LOG.log(
                            Level.WARNING,
                            "deleting a dead-lettered message that is not a run message: " + poison.getMessage());
                    deadLetters.delete(message.receiptHandle());
                    continue;
                }
                Optional<Run> run = runs.get(m.jobId(), m.runId());
                if (run.isEmpty() || run.get().state().terminal() || run.get().state() == RunState.SCHEDULED) {
                    deadLetters.delete(message.receiptHandle());
                    continue;
                }
                Instant now = clock.instant();
                Change change = Change.of(Transition.DEAD_LETTER, run.get(), now)
                        .withError("message dead-lettered after " + Resources.MAX_RECEIVE_COUNT + " receives");
                RunRepository.Result dead = runs.apply(change);
                if (dead.won()) {
                    marked++;
                    RunNotice.of(change, dispatcher.job(m.jobId()).orElse(null), Dispatcher.SWEEPER)
                            .ifPresent(dispatcher.notices()::publish);
                    meters.deadLettered(1);
                    LOG.log(
                            Level.WARNING,
                            "run " + m.jobId() + "/" + m.runId() + " is DEAD: its message was" + " dead-lettered");
                    deadLetters.delete(message.receiptHandle());
                } else if (dead.found() == null || dead.found().state().terminal()) {
                    deadLetters.delete(message.receiptHandle());
                }
            }
        }
        return marked;
    }

    /** What one sweep saw and did. */
    public record SweepReport(
            Instant from,
            Instant horizon,
            int buckets,
            int due,
            int sent,
            int marked,
            int materialized,
            int failed,
            int deferred,
            int resent,
            int overdue,
            Instant watermark) {}
}
