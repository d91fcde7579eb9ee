package dev.punctual.core.exec;

import dev.punctual.core.config.Settings;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.SharedJobReads;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.queue.RunQueues;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.store.Claims;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Handles one message: claim the run, run its binary, record the outcome, and settle the message (delete it, or
 * make it visible again after the retry backoff). The claim is the only way a run starts, and the attempt number it
 * grants fences every later write of this executor.
 */
public final class RunWorker {
    private static final System.Logger LOG = System.getLogger(RunWorker.class.getName());
    public static final String SHUTDOWN = "executor shutting down";
    public static final String FENCED = "lease lost to another executor";
    public static final String SELF_FENCED = "lease could not be renewed before it expired";
    /** Why a process held at its gate was ended before its binary started (it never ran). */
    public static final String NOT_LET_START = "not let start";

    private final RunRepository runs;
    private final JobRepository jobs;
    /** The strong reads of jobs, shared by the runs this executor claims at once. */
    private final SharedJobReads strongReads;
    /** The job's check after a claim of the run alone. */
    private final JobCheck check;

    private final Claims claims;
    private final RunQueues queue;
    private final Settings settings;
    private final Clock clock;
    private final String executorId;
    private final AttemptRunner attempts;
    private final RunEvents events;
    private final LostClaims lost;

    /** {@code attempts} runs what this worker claims, on the same executor ({@link AttemptRunner#executorId}). */
    public RunWorker(
            RunRepository runs,
            JobRepository jobs,
            Claims claims,
            RunQueues queue,
            Settings settings,
            Clock clock,
            AttemptRunner attempts) {
        this.runs = runs;
        this.jobs = jobs;
        this.claims = claims;
        this.queue = queue;
        this.settings = settings;
        this.clock = clock;
        this.executorId = attempts.executorId();
        this.attempts = attempts;
        this.events = attempts.events();
        this.lost = new LostClaims(runs, queue, events, executorId);
        this.strongReads = new SharedJobReads(jobs, executorId);
        this.check = new JobCheck(strongReads, settings.execution().lease(), clock, attempts);
    }

    public String executorId() {
        return executorId;
    }

    Meters meters() {
        return attempts.meters();
    }

    /** What happened to one message. */
    public enum Outcome {
        SUCCEEDED,
        FAILED,
        DEAD,
        RELEASED,
        FENCED,
        EARLY,
        POISON,
        CANCELLED,
        ALREADY_DONE,
        LEASED_ELSEWHERE,
        CONFLICT,
        /** No such run, or no such job, (yet): looked at again shortly, for a while, then dropped or withdrawn. */
        UNKNOWN_RUN,
        /** Not started: an earlier run of the job is still running and the job says {@code overlap: forbid}. */
        SKIPPED,
        /** Not started yet: an earlier run of the job is still running and the job says {@code overlap: queue}. */
        WAITING,
        /** Not started within the job's {@code maxRunAge}: DEAD. */
        EXPIRED
    }

    /** How often a run held back by {@code overlap: queue} looks again whether the running one has finished. */
    public static final Duration OVERLAP_POLL = Duration.ofSeconds(5);
    /** The longest SQS lets a received message stay invisible (ChangeMessageVisibility's maximum). */
    static final Duration MAX_VISIBILITY = Duration.ofHours(12);
    /** The error of a run the executor refused to launch (see {@link LaunchCheck}); the problems follow. */
    public static final String REFUSED = "refused to start: ";

    private static final int CLAIM_RACES = 3;

    /**
     * How long before its due instant a run that may overlap itself is claimed: the claim, the job's check, the
     * sandbox and the process chain are done by then, and nothing but the release of its gate lies between the
     * instant and the start.
     * Well within {@link RunRepository#CLAIM_TOLERANCE}, and longer than a claim takes (the bench's p99 on the
     * emulators is under 100 ms).
     */
    static final Duration CLAIM_AHEAD = Duration.ofMillis(500);
    /**
     * How long after its due time a message whose run does not exist (yet) is looked at again before it is dropped.
     * A job created with its first run due soon has that run's message sent before the run is written
     * ({@code Dispatcher.sendBeforeWrite}), and the run has no due-index entry ({@code Transition.ENQUEUE}): the
     * message is its only way to an executor, so it must outlast the slowest creation by far (API Gateway ends a
     * request at 30 s; the SDK's retries under throttling take seconds). Looks start 2 s apart and double up to
     * {@value #UNKNOWN_RUN_MAX_RETRY_SECONDS} s: about 13 receives in 5 minutes, under the queue's
     * {@code maxReceiveCount} (25), so the message is not dead-lettered meanwhile.
     */
    static final Duration UNKNOWN_RUN_PATIENCE = Duration.ofMinutes(5);

    static final int UNKNOWN_RUN_RETRY_SECONDS = 2;
    static final int UNKNOWN_RUN_MAX_RETRY_SECONDS = 30;

    /**
     * How long after its due time a run whose job has no item yet is looked at again rather than withdrawn: longer
     * than a creation can take (API Gateway gives a request 30 s), so a job whose write is slow is never taken for
     * one that will not come. A run whose job never comes (an undone creation) is withdrawn after it.
     */
    static final Duration JOB_WRITE_GRACE = Duration.ofSeconds(60);

    /**
     * A run slot of the executor, taken once the message's run is due, just before its claim, and given back once
     * the run's processes are gone (its outcome is written after that, outside the slot): a message that waits for
     * its due instant, or for a slot, holds none.
     */
    @FunctionalInterface
    public interface Slot {
        /** No limit: the caller ran out of nothing (a worker on its own, as in tests). */
        Slot ANY = () -> true;

        /**
         * Gives the slot back: the run's binary and every process of it have ended (or it never started). Called at
         * most once before {@link #handle} returns, which gives it back anyway.
         */
        default void free() {}

        /** Waits for a slot; false when the executor is stopping and the run should be left to another. */
        boolean take() throws InterruptedException;
    }

    /** Handles one message with no limit on run slots (see {@link #handle(Delivery, Slot)}). */
    public Outcome handle(Delivery message) throws InterruptedException {
        return handle(message, Slot.ANY);
    }

    /** Handles one message, taking a run slot from {@code slot} just before claiming its run. */
    public Outcome handle(Delivery message, Slot slot) throws InterruptedException {
        RunMessage m;
        try {
            m = RunMessage.decode(message.body());
        } catch (IllegalArgumentException e) {
            // Left alone: after maxReceiveCount receives the queue's redrive policy moves it to the DLQ.
            LOG.log(Level.WARNING, "poison message " + message.messageId() + ": " + e.getMessage());
            return Outcome.POISON;
        }
        StartTiming timing = StartTiming.received(clock, m.scheduledAt());
        Duration early = Duration.between(clock.instant(), m.scheduledAt());
        if (early.compareTo(RunQueue.EARLY_DELIVERY.plusSeconds(1)) > 0) {
            lost.hideUntil(message, m.scheduledAt(), clock.instant());
            return Outcome.EARLY;
        }

        for (int race = 0; race < CLAIM_RACES; race++) {
            // Read once per try: its firing policy decides the claim, its active run is what the claim expects,
            // and its binary, args and env are what runs (as of the claim, give or take this read). The first
            // read is eventually consistent (half the price): the claim itself checks that the job may run and
            // that its active run is the one read; a lost race on the active run reads strongly the next time, and
            // so does a miss (a job created a moment ago, whose run is due now). A message whose sender says the
            // job's runs may overlap (its hint: given by the dispatch that read the job, or by a first run's send as
            // its job was created) skips this read: such a claim is the run's alone, and the job is read strongly
            // right after it anyway (claimed). Only at its first delivery: one delivered again may have been handed
            // back because its job no longer matches the hint (replaced by a definition whose runs must not
            // overlap), and the hint would have it claimed and handed back again at every delivery, until the queue
            // dead-lettered it (found by SendFirstCreateTest). Delivered again, it is read like an unhinted one.
            // With running limits, the job is read: its owner says whose limit the claim takes a slot of.
            boolean hinted = race == 0
                    && m.hint() != null
                    && message.receives() <= 1
                    && !settings.running().any();
            Optional<Job> job =
                    hinted ? Optional.empty() : race > 0 ? strongReads.get(m.jobId()) : jobs.get(m.jobId(), false);
            if (job.isEmpty() && race == 0 && !hinted) {
                job = strongReads.get(m.jobId());
            }
            timing.mark(hinted ? "job hinted" : "job read");
            if (job.isEmpty() && race == 0 && !hinted && awaitsItsJob(m)) {
                // No job item at all (a deleted job keeps its item, DELETED), but the run is there: it was written
                // before its job (JobCreation), whose own write has not landed yet, or never will (a creation
                // undone). Look again shortly rather than withdraw a run whose job is about to exist (found by the
                // fault suite: under throttling, a job's write landed seconds after its run had been withdrawn).
                queue.changeVisibility(message, UNKNOWN_RUN_RETRY_SECONDS);
                return Outcome.UNKNOWN_RUN;
            }
            if (race == 0) {
                // The message came up to RunQueue.EARLY_DELIVERY + 1 s early (SQS delays are whole seconds, rounded
                // down): the job was read meanwhile; wait out the rest. A run whose job may run, and may overlap
                // itself, is claimed CLAIM_AHEAD before its instant, its job checked and its process readied; its
                // binary is let start at the instant (AttemptRunner). Any other is claimed at its instant. (The
                // message's due time is only a hint: the claim checks the run's own.)
                boolean ahead = hinted
                        || job.filter(j -> j.firing().overlap() == Overlap.ALLOW)
                                .filter(j -> JobCheck.whyNotRunnable(Optional.of(j.state()))
                                        .isEmpty())
                                .isPresent();
                WhileHeld.waitUntil(clock, ahead ? m.scheduledAt().minus(CLAIM_AHEAD) : m.scheduledAt());
                timing.mark(ahead ? "claim ahead" : "due");
                if (!slot.take()) {
                    // The executor is stopping and nothing is claimed yet: the message goes straight back.
                    queue.changeVisibility(message, 0);
                    return Outcome.RELEASED;
                }
                timing.mark("slot");
            }
            FiringPolicy policy =
                    hinted ? m.hint().firing() : job.map(Job::firing).orElse(FiringPolicy.DEFAULT);
            Instant now = clock.instant();
            if (race == 0
                    && now.isAfter(m.scheduledAt().plus(policy.maxRunAge()))
                    && lost.expired(message, m, job.orElse(null), policy, now)) {
                return Outcome.EXPIRED;
            }
            // A slot of the job's to claim the run into, under a job limit (slot 0, expecting it empty, when no job
            // was found: the claim then loses on the job). None free: the job is full, which the claim would only
            // confirm.
            boolean overlaps = policy.overlap() == Overlap.ALLOW;
            Optional<Claims.Slot> jobSlot = overlaps
                    ? Optional.empty()
                    : job.isEmpty() ? Optional.of(new Claims.Slot(0, null)) : claims.slotFor(job.get(), m.runId(), now);
            // A slot of the tenant's, under a running limit: none free, the tenant is full.
            int limit = job.map(j -> settings.running().limitFor(j.owner())).orElse(0);
            Optional<Claims.TenantSlot> tenantSlot = limit == 0 || (!overlaps && jobSlot.isEmpty())
                    ? Optional.empty()
                    : claims.tenantSlotFor(job.get().owner(), limit, m.jobId(), m.runId(), now);
            if (overlaps && limit == 0) {
                // The run alone, in one conditional update that returns the run as claimed (no transaction, no
                // read back); the job's check comes right after (claimed).
                // Its job's read is announced first: the runs whose claims share a call read their jobs in one.
                RunRepository.Result r;
                try (var read = strongReads.expect()) {
                    r = attempts.writes().applyReturningNew(grant(m, now));
                    if (r.won()) {
                        return check.check(message, m, r.found(), now, timing.mark("claimed"), slot, read);
                    }
                }
                attempts.meters().claimLost();
                Outcome gone = lost.lostRun(message, m, job.orElse(null), r.found(), now);
                if (gone != null) {
                    return gone;
                }
                continue;
            }
            Claims.Exclusive claim;
            if (!overlaps && jobSlot.isEmpty()) {
                claim = new Claims.OverlapRunning(job.get().activeRuns().getFirst());
            } else if (limit > 0 && tenantSlot.isEmpty()) {
                claim = new Claims.TenantFull(limit);
            } else {
                claim = claims.claim(
                        grant(m, now), job.orElse(null), jobSlot.orElse(null), tenantSlot.orElse(null), now);
            }
            if (claim instanceof Claims.Won) {
                // Read back through a passing store outage: the claim is ours until its lease ends, and giving up
                // here would leave an attempt spent that never started its binary.
                Run run = WhileHeld.call(
                                clock,
                                new AtomicReference<>(
                                        now.plus(settings.execution().lease())),
                                "reading back the claimed run " + m.jobId() + "/" + m.runId(),
                                Integer.MAX_VALUE,
                                () -> runs.get(m.jobId(), m.runId()))
                        .orElseThrow();
                if (run.state() != RunState.RUNNING || !executorId.equals(run.leaseOwner())) {
                    // Frozen between the claim and this read, long enough for the lease to pass to another
                    // executor: the attempt read back is theirs, not ours. The message is theirs too now.
                    LOG.log(
                            Level.WARNING,
                            "run " + m.jobId() + "/" + m.runId() + " was taken over by " + run.leaseOwner()
                                    + " right after our claim");
                    return Outcome.FENCED;
                }
                try {
                    return overlaps
                            ? check.check(message, m, run, now, timing.mark("claimed"), slot, null)
                            : attempts.run(message, run, job.orElseThrow(), timing.mark("claimed"), null, slot::free);
                } finally {
                    // The attempt's outcome is written (or it was handed back): the tenant's slot is free again.
                    tenantSlot.ifPresent(claims::release);
                }
            }
            attempts.meters().claimLost();
            Outcome gone = lost.lostClaim(message, m, job.orElse(null), claim, policy, now);
            if (gone != null) {
                return gone;
            }
            // The job's active run changed between our read and our claim (another run of it started): again.
        }
        return Outcome.CONFLICT;
    }

    /** Whether the run of {@code m}, whose job has no item, is there, unfinished and within JOB_WRITE_GRACE of due. */
    private boolean awaitsItsJob(RunMessage m) {
        return clock.instant().isBefore(m.scheduledAt().plus(JOB_WRITE_GRACE))
                && runs.get(m.jobId(), m.runId())
                        .filter(r -> !r.state().terminal())
                        .isPresent();
    }

    /**
     * The claim's change. A claim ahead of the instant leases the run from the instant on (at most
     * {@link RunRepository#CLAIM_TOLERANCE} ahead, what the claim's condition allows): its binary starts with the
     * whole lease before it, as a run claimed at its instant does. Its launch, written {@link LeaseKeeper#LAUNCH_DELAY}
     * after the start, is the first renewal, so the claim's lease covers that delay too: a run that ends before its
     * launch is written has as long to write its outcome through a store outage as when the launch renewed the lease
     * at the start (found by the fault suite's outage at the result write, whose short runs were re-run once).
     */
    private Change grant(RunMessage m, Instant now) {
        Instant from =
                m.scheduledAt().isAfter(now) ? min(m.scheduledAt(), now.plus(RunRepository.CLAIM_TOLERANCE)) : now;
        return Change.of(Transition.CLAIM, m.jobId(), m.runId(), now)
                .withLease(executorId, from.plus(settings.execution().lease()).plus(LeaseKeeper.LAUNCH_DELAY));
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    /** Stops the supervisor and the watches (the executor is stopping; no run is left to watch). */
    public void close() {
        strongReads.close();
        attempts.close();
    }

    /** Kills every running binary, e.g. when the shutdown grace period is over; their runs are released. */
    public void killAll(String reason) {
        attempts.killAll(reason);
    }

    public int runningCount() {
        return attempts.runningCount();
    }
}
