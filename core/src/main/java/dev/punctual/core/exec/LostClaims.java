package dev.punctual.core.exec;

import dev.punctual.core.exec.RunWorker.Outcome;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.job.Job;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunQueues;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.store.Claims;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What becomes of a message whose run this executor did not claim ({@link RunWorker}): a duplicate deleted, a run
 * not written yet looked at again, one leased elsewhere left to its lease, one out of attempts or past its
 * {@code maxRunAge} ended DEAD, one whose job's earlier run still runs skipped or made to wait, one whose job was
 * deleted or paused cancelled. Each ending is a conditional write that may itself lose, and says so.
 */
final class LostClaims {
    private static final System.Logger LOG = System.getLogger(RunWorker.class.getName());

    private final RunRepository runs;
    private final RunQueues queue;
    private final RunEvents events;
    private final String executorId;

    LostClaims(RunRepository runs, RunQueues queue, RunEvents events, String executorId) {
        this.runs = runs;
        this.queue = queue;
        this.events = events;
        this.executorId = executorId;
    }

    /** Whether the run has waited longer than the job's maxRunAge; if so it is now DEAD and the message gone. */
    boolean expired(Delivery message, RunMessage m, Job job, FiringPolicy policy, Instant now) {
        Optional<Run> run = runs.get(m.jobId(), m.runId());
        if (run.isEmpty()
                || run.get().state().terminal()
                || !now.isAfter(run.get().dueSince().plus(policy.maxRunAge()))) {
            return false;
        }
        String why = "not started within maxRunAge " + policy.maxRunAge() + " of becoming due at "
                + run.get().dueSince();
        if (!applyAndTell(Change.of(Transition.DEAD_LETTER, run.get(), now).withError(why), job)) {
            // Running under a live lease, or it moved on meanwhile: not ours to end.
            return false;
        }
        queue.delete(message);
        return true;
    }

    /**
     * What a lost exclusive claim means ({@link Claims#claimExclusive}); null: a race on the job's active run, to be
     * tried again.
     */
    Outcome lostClaim(
            Delivery message, RunMessage m, Job job, Claims.Exclusive claim, FiringPolicy policy, Instant now) {
        return switch (claim) {
            case Claims.RunLost lost -> lostRun(message, m, job, lost.seen(), now);
            case Claims.JobLost lost -> {
                Optional<String> stopped = JobCheck.whyNotRunnable(lost.state());
                if (stopped.isEmpty()) {
                    yield null;
                }
                // The job was deleted or paused while this run waited in the queue: it must not start.
                applyAndTell(
                        Change.of(Transition.CANCEL_UNSTARTED, m.jobId(), m.runId(), now)
                                .withError(stopped.get()),
                        job);
                queue.delete(message);
                yield Outcome.CANCELLED;
            }
            case Claims.OverlapRunning running -> overlapping(message, m, job, running.active(), policy, now);
            case Claims.TenantFull full -> tenantFull(message, m, job, full, policy, now);
            case Claims.TenantSlotLost raced -> null;
            case Claims.Won won -> throw new IllegalStateException("a won claim is not lost");
            case Claims.Conflict conflict -> Outcome.CONFLICT;
        };
    }

    /** The wait before the next look at a message whose run does not exist yet, at its {@code receives}th. */
    static int unknownRunRetrySeconds(int receives) {
        return Math.min(
                RunWorker.UNKNOWN_RUN_MAX_RETRY_SECONDS,
                RunWorker.UNKNOWN_RUN_RETRY_SECONDS << Math.clamp(receives - 1, 0, 4));
    }

    /** What a claim lost on the run's own condition means ({@code seen}: the run as the claim found it). */
    Outcome lostRun(Delivery message, RunMessage m, Job job, Run seen, Instant now) {
        if (seen == null && now.isBefore(m.scheduledAt().plus(RunWorker.UNKNOWN_RUN_PATIENCE))) {
            // A job created with its first run's message sent before the write of the run
            // (Dispatcher.sendBeforeWrite) may not have written it yet: look again in a while rather than drop the
            // run's only message. A message for a run that never comes to exist (its creation failed and was undone,
            // or the message is forged) is dropped once the patience is over.
            queue.changeVisibility(message, unknownRunRetrySeconds(message.receives()));
            return Outcome.UNKNOWN_RUN;
        }
        if (seen == null || seen.state().terminal()) {
            // Finished (or never existed): this is a duplicate delivery.
            queue.delete(message);
            return Outcome.ALREADY_DONE;
        }
        boolean leasedNow = seen.state() == RunState.RUNNING
                && seen.leaseExpiry() != null
                && seen.leaseExpiry().isAfter(now);
        if (!leasedNow && seen.attempt() >= seen.maxAttempts()) {
            if (seen.state() == RunState.RUNNING
                    && seen.launchedAt() == null
                    && runs.apply(Change.of(Transition.GIVE_BACK, seen, now)
                                    .withError("attempt " + seen.attempt() + " never started its binary: its "
                                            + "executor " + seen.leaseOwner() + " stopped first; given back"))
                            .won()) {
                // The last attempt's executor stopped before it started the binary: that attempt did not run,
                // and is given back. Claim again.
                LOG.log(
                        Level.INFO,
                        "run " + seen.jobId() + "/" + seen.runId() + ": attempt " + seen.attempt()
                                + " never started its binary; given back");
                return null;
            }
            return exhausted(message, job, seen, now);
        }
        Instant due = seen.scheduledAt();
        if (!RunRepository.dueForClaim(due, now)) {
            // The message says the run is due; the run says it is not (a forged or misdirected message, one
            // sent before an update moved the run later, or a clock ahead). The message is kept, invisible
            // until the run's due time, rather than deleted: if it is the run's real message, nothing else
            // would bring the run back before the sweeper's requeue timeout. If the run is moved meanwhile,
            // this message is merely early again or a spare copy: moving a run later or earlier only
            // happens while it is SCHEDULED, and the dispatcher then sends a message of its own, and
            // whichever claim comes first at the due time wins. A run due more than 12 hours ahead comes
            // back and is hidden again; every time counts as a receive towards the queue's maxReceiveCount.
            LOG.log(
                    Level.WARNING,
                    "message for " + m.jobId() + "/" + m.runId() + " says due at " + m.scheduledAt()
                            + ", but the run is due at " + due + ": hidden until then");
            hideUntil(message, due, now);
            return Outcome.EARLY;
        }
        // Another executor holds a live lease; if it dies, this message brings the run back after the lease.
        return Outcome.LEASED_ELSEWHERE;
    }

    /**
     * The run has used every attempt, yet a message brought it back: its last attempt's executor stopped without an
     * outcome (crashed, froze, or lost its lease), which counts as a failed attempt. It ends DEAD, saying so.
     */
    private Outcome exhausted(Delivery message, Job job, Run seen, Instant now) {
        String why = seen.state() == RunState.RUNNING
                ? "attempt " + seen.attempt() + " of " + seen.maxAttempts() + " ended without an outcome (its "
                        + "executor " + seen.leaseOwner() + " stopped: crashed, froze or lost its lease), and no "
                        + "attempt is left"
                : "no attempt is left (" + seen.attempt() + " of " + seen.maxAttempts() + " used)";
        if (!applyAndTell(Change.of(Transition.DEAD_LETTER, seen, now).withError(why), job)) {
            return Outcome.CONFLICT;
        }
        queue.delete(message);
        return Outcome.DEAD;
    }

    /**
     * The job is full, its run {@code active} (and, under a limit above one, the others in its slots) still running:
     * skip this one (forbid) or look again shortly (queue).
     */
    private Outcome overlapping(
            Delivery message, RunMessage m, Job job, String active, FiringPolicy policy, Instant now) {
        if (policy.overlap() == Overlap.QUEUE) {
            // The re-sent messages carry the time of the next look, not the run's due time, so the age is
            // checked against the run itself here.
            if (expired(message, m, job, policy, now)) {
                return Outcome.EXPIRED;
            }
            return lookAgainLater(message, m, now);
        }
        if (applyAndTell(
                Change.of(Transition.SKIP_OVERLAPPING, m.jobId(), m.runId(), now)
                        .withError(
                                policy.maxConcurrency() > 1
                                        ? "maxConcurrency " + policy.maxConcurrency() + " reached: run " + active
                                                + " of this job and others still running (overlap: forbid)"
                                        : "run " + active + " of this job was still running (overlap: forbid)"),
                job)) {
            queue.delete(message);
            return Outcome.SKIPPED;
        }
        return Outcome.CONFLICT;
    }

    /**
     * The run's tenant is at its running limit: the run waits, unclaimed (no attempt used), saying why on the run
     * ({@link Transition#WAIT}), and its message comes back {@link RunWorker#OVERLAP_POLL} later as a fresh one, as
     * under {@code overlap: queue}, so that waiting does not count towards the queue's maxReceiveCount. Past its
     * {@code maxRunAge} it is DEAD, as any run that waited that long.
     */
    private Outcome tenantFull(
            Delivery message, RunMessage m, Job job, Claims.TenantFull full, FiringPolicy policy, Instant now) {
        if (expired(message, m, job, policy, now)) {
            return Outcome.EXPIRED;
        }
        // Lost only by a run that moved on meanwhile (claimed elsewhere, finished): then the next look says so.
        runs.apply(Change.of(Transition.WAIT, m.jobId(), m.runId(), now)
                .withError("waiting: its tenant has " + full.limit() + " runs running, its limit (punctual"
                        + ".quota-running); looked at again every " + RunWorker.OVERLAP_POLL.toSeconds() + " s"));
        return lookAgainLater(message, m, now);
    }

    /**
     * The run waits: its message comes back {@link RunWorker#OVERLAP_POLL} later, in its lane, as a fresh message
     * rather than a longer invisibility, so that a long wait does not count towards the queue's maxReceiveCount and
     * end in the dead-letter queue. Sent before the delete: a crash in between leaves a duplicate, which the claim
     * makes harmless.
     */
    private Outcome lookAgainLater(Delivery message, RunMessage m, Instant now) {
        queue.sendBatch(
                List.of(new RunMessage(m.jobId(), m.runId(), now.plus(RunWorker.OVERLAP_POLL), null, message.lane())),
                now);
        queue.delete(message);
        return Outcome.WAITING;
    }

    /**
     * Makes the message invisible until {@code due} (whole seconds, rounded down so it comes back in the due
     * second, where the claim may win and the rest is waited out; at least one second, at most SQS's maximum).
     */
    void hideUntil(Delivery message, Instant due, Instant now) {
        long seconds = Math.max(
                1,
                Math.min(
                        RunWorker.MAX_VISIBILITY.toSeconds(),
                        Duration.between(now, due).toSeconds()));
        queue.changeVisibility(message, (int) seconds);
    }

    /**
     * Applies {@code change}; when it wins, logs the run's transition ({@link RunEvent}) and publishes it if it is an
     * outcome ({@code job}: as read, null if not). Whether it won.
     */
    private boolean applyAndTell(Change change, Job job) {
        if (!runs.apply(change).won()) {
            return false;
        }
        events.emit(change, job, executorId);
        return true;
    }
}
