package dev.punctual.core.exec;

import dev.punctual.core.exec.RunWorker.Outcome;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.infra.SharedCalls;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.job.SharedJobReads;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Run;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The job's check after a claim made on the run alone (under {@code overlap: allow}, where the claim is one
 * conditional update of the run, with no transaction over its job): the job, read strongly, decides whether the
 * claimed attempt starts, is handed back or is withdrawn.
 */
final class JobCheck {
    private final SharedJobReads strongReads;
    private final Duration lease;
    private final Clock clock;
    private final AttemptRunner attempts;

    JobCheck(SharedJobReads strongReads, Duration lease, Clock clock, AttemptRunner attempts) {
        this.strongReads = strongReads;
        this.lease = lease;
        this.clock = clock;
        this.attempts = attempts;
    }

    /**
     * A run claimed on its own (under {@code overlap: allow}) starts only if its job, read strongly right after the
     * claim, may run. This is the check the claim transaction makes under the other policies, moved after the claim:
     * a job deleted or paused before this read is seen here, and the run is withdrawn, never started. A job read
     * here is what runs (its binary, args and env), whatever the read before the claim said. Read through a passing
     * store outage: the claim is ours until its lease ends, and giving up here would leave an attempt spent that
     * never started its binary.
     *
     * <p>A run claimed ahead of its instant is then let start at the instant with no store call in between; a
     * delete or pause that lands after this read answers only once the run has started ({@code
     * JobStops.awaitCommittedStarts}), and an executor that gets to the instant late reads the job again
     * ({@link AttemptRunner}).
     */
    Outcome check(
            Delivery message,
            RunMessage m,
            Run run,
            Instant now,
            StartTiming timing,
            RunWorker.Slot slot,
            SharedCalls<String, Optional<Job>>.Expected read)
            throws InterruptedException {
        Optional<Job> job = readStrongly(m, now, read);
        if (job.isEmpty() && clock.instant().isBefore(m.scheduledAt().plus(RunWorker.JOB_WRITE_GRACE))) {
            // No job item at all, and the run is there: claimed on its message's hint, before its job's own write
            // (after the run's, JobCreation) landed, or a creation being undone. Handed back without using an
            // attempt up, and looked at again shortly; withdrawn as a deleted job's once the grace is over.
            return attempts.handBack(
                    message, run, "its job is not written yet: handed back", RunWorker.UNKNOWN_RUN_RETRY_SECONDS);
        }
        Optional<String> stopped = whyNotRunnable(job.map(Job::state));
        if (stopped.isPresent()) {
            return attempts.withdraw(message, run, job.orElse(null), stopped.get());
        }
        if (job.get().firing().overlap() != Overlap.ALLOW) {
            // Replaced since the read before the claim by a definition whose runs must not overlap: this claim did
            // not check that, the claim transaction does. Handed back, claimed again at once as the policy says.
            return attempts.handBack(
                    message,
                    run,
                    "its job was replaced (version " + job.get().version()
                            + ") as this attempt was claimed: handed back, to be claimed as its new overlap policy says",
                    0);
        }
        boolean ahead = now.isBefore(run.scheduledAt());
        return attempts.run(
                message,
                run,
                job.get(),
                timing.mark("job checked"),
                ahead ? () -> readStrongly(m, now, null) : null,
                slot::free);
    }

    /**
     * The job of a claimed run, read strongly, through a passing store outage while the claim's lease lasts;
     * {@code read}, when not null, is the announcement of this read made before the claim.
     */
    private Optional<Job> readStrongly(
            RunMessage m, Instant claimedAt, SharedCalls<String, Optional<Job>>.Expected read)
            throws InterruptedException {
        return WhileHeld.call(
                clock,
                new AtomicReference<>(claimedAt.plus(lease)),
                "reading the job of the claimed run " + m.jobId() + "/" + m.runId(),
                Integer.MAX_VALUE,
                () -> read == null ? strongReads.get(m.jobId()) : strongReads.get(m.jobId(), read));
    }

    /**
     * Why a run of a job in {@code state} (empty: no job) must not start: "job paused" or "job deleted"; empty when
     * the job may run (ACTIVE or COMPLETED).
     */
    static Optional<String> whyNotRunnable(Optional<JobState> state) {
        if (state.filter(st -> st == JobState.ACTIVE || st == JobState.COMPLETED)
                .isPresent()) {
            return Optional.empty();
        }
        return Optional.of(state.filter(st -> st == JobState.PAUSED).isPresent() ? "job paused" : "job deleted");
    }
}
