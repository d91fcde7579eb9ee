package dev.punctual.core.run;

import java.time.Instant;
import java.util.Objects;

/**
 * One {@link Transition} asked of one run, with what its write needs: the run as the caller knows it (whose state
 * and attempt fence the write where the transition says so), the executor that holds the attempt, and the outcome's
 * details. {@link RunRepository#apply} and {@link RunRepository#write} turn it into one conditional write.
 *
 * <p>Built with {@code of} and refined with the {@code with…} methods, each returning a new value.
 */
public record Change(
        Transition transition,
        Run run,
        String jobId,
        String runId,
        Instant now,
        Integer attempt,
        String executorId,
        Instant leaseExpiry,
        Integer exitCode,
        String error,
        String logKey,
        String log,
        Integer maxAttempts) {

    public Change {
        Objects.requireNonNull(transition, "transition");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(now, "now");
    }

    /** {@code t} of the run {@code run}: the run to write (SCHEDULE, RESCHEDULE), or the run as the caller read it. */
    public static Change of(Transition t, Run run, Instant now) {
        return new Change(
                t, run, run.jobId(), run.runId(), now, run.attempt(), null, null, null, null, null, null, null);
    }

    /** {@code t} of a run the caller knows only by its key (its transition fences on nothing the caller read). */
    public static Change of(Transition t, String jobId, String runId, Instant now) {
        return new Change(t, null, jobId, runId, now, null, null, null, null, null, null, null, null);
    }

    /** The attempt the change acts for, where the caller knows it without the run (it defaults to the run's). */
    public Change withAttempt(int n) {
        return new Change(
                transition,
                run,
                jobId,
                runId,
                now,
                n,
                executorId,
                leaseExpiry,
                exitCode,
                error,
                logKey,
                log,
                maxAttempts);
    }

    /** The executor that holds (or, for a claim, asks for) the attempt, and the lease it asks for. */
    public Change withLease(String executor, Instant expiry) {
        return new Change(
                transition,
                run,
                jobId,
                runId,
                now,
                attempt,
                executor,
                expiry,
                exitCode,
                error,
                logKey,
                log,
                maxAttempts);
    }

    /** The executor that holds the attempt, for an outcome (the lease ends with it). */
    public Change withExecutor(String executor) {
        return withLease(executor, leaseExpiry);
    }

    public Change withExitCode(Integer code) {
        return new Change(
                transition,
                run,
                jobId,
                runId,
                now,
                attempt,
                executorId,
                leaseExpiry,
                code,
                error,
                logKey,
                log,
                maxAttempts);
    }

    /** Why: the error of a failed outcome, or the reason a run was cancelled, skipped or ended. */
    public Change withError(String why) {
        return new Change(
                transition,
                run,
                jobId,
                runId,
                now,
                attempt,
                executorId,
                leaseExpiry,
                exitCode,
                why,
                logKey,
                log,
                maxAttempts);
    }

    /** The attempt's log as stored in S3 under {@code key}. */
    public Change withLogKey(String key) {
        return new Change(
                transition,
                run,
                jobId,
                runId,
                now,
                attempt,
                executorId,
                leaseExpiry,
                exitCode,
                error,
                key,
                null,
                maxAttempts);
    }

    /** The attempt's log kept on the run itself, being small ({@code text}; an outcome takes a key or a text). */
    public Change withLog(String text) {
        return new Change(
                transition,
                run,
                jobId,
                runId,
                now,
                attempt,
                executorId,
                leaseExpiry,
                exitCode,
                error,
                null,
                text,
                maxAttempts);
    }

    /** The attempt budget a re-drive raises the run to. */
    public Change withMaxAttempts(int max) {
        return new Change(
                transition,
                run,
                jobId,
                runId,
                now,
                attempt,
                executorId,
                leaseExpiry,
                exitCode,
                error,
                logKey,
                log,
                max);
    }

    /** The run as read, for the transitions that fence on it; fails loudly where the caller gave none. */
    Run seen() {
        if (run == null) {
            throw new IllegalStateException(transition + " fences on the run as read: build it with Change.of(t, run)");
        }
        return run;
    }

    /** The attempt this change acts for: the executor's own, or the one read. */
    int fencingAttempt() {
        if (attempt == null) {
            throw new IllegalStateException(transition + " fences on an attempt: give the run or withAttempt");
        }
        return attempt;
    }
}
