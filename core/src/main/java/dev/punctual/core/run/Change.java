package dev.punctual.core.run;

import java.time.Instant;
import java.util.Objects;
import java.util.function.Consumer;

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
        Integer maxAttempts,
        Instant startedAt) {

    public Change {
        Objects.requireNonNull(transition, "transition");
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(now, "now");
    }

    /** {@code t} of the run {@code run}: the run to write (SCHEDULE, RESCHEDULE), or the run as the caller read it. */
    public static Change of(Transition t, Run run, Instant now) {
        return new Change(
                t, run, run.jobId(), run.runId(), now, run.attempt(), null, null, null, null, null, null, null, null);
    }

    /** {@code t} of a run the caller knows only by its key (its transition fences on nothing the caller read). */
    public static Change of(Transition t, String jobId, String runId, Instant now) {
        return new Change(t, null, jobId, runId, now, null, null, null, null, null, null, null, null, null);
    }

    /** The attempt the change acts for, where the caller knows it without the run (it defaults to the run's). */
    public Change withAttempt(int n) {
        return edit(e -> e.attempt = n);
    }

    /** The executor that holds (or, for a claim, asks for) the attempt, and the lease it asks for. */
    public Change withLease(String executor, Instant expiry) {
        return edit(e -> {
            e.executorId = executor;
            e.leaseExpiry = expiry;
        });
    }

    /** The executor that holds the attempt, for an outcome (the lease ends with it). */
    public Change withExecutor(String executor) {
        return withLease(executor, leaseExpiry);
    }

    public Change withExitCode(Integer code) {
        return edit(e -> e.exitCode = code);
    }

    /** Why: the error of a failed outcome, or the reason a run was cancelled, skipped or ended. */
    public Change withError(String why) {
        return edit(e -> e.error = why);
    }

    /** The attempt's log as stored in S3 under {@code key}. */
    public Change withLogKey(String key) {
        return edit(e -> {
            e.logKey = key;
            e.log = null;
        });
    }

    /** The attempt's log kept on the run itself, being small ({@code text}; an outcome takes a key or a text). */
    public Change withLog(String text) {
        return edit(e -> {
            e.logKey = null;
            e.log = text;
        });
    }

    /** The attempt budget a re-drive raises the run to. */
    public Change withMaxAttempts(int max) {
        return edit(e -> e.maxAttempts = max);
    }

    /**
     * When the attempt's binary started, for an outcome written without a launch before it: the binary ended before
     * its launch was due to be written, so the outcome records the start itself (one write a run instead of two).
     */
    public Change withStartedAt(Instant at) {
        return edit(e -> e.startedAt = at);
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

    /** A copy with what {@code edit} changes: each {@code with…} names only its own fields. */
    private Change edit(Consumer<Editor> edit) {
        Editor e = new Editor(this);
        edit.accept(e);
        return new Change(
                transition,
                run,
                jobId,
                runId,
                now,
                e.attempt,
                e.executorId,
                e.leaseExpiry,
                e.exitCode,
                e.error,
                e.logKey,
                e.log,
                e.maxAttempts,
                e.startedAt);
    }

    /** The fields a {@code with…} may change (the transition, the run and its key, and the instant never do). */
    private static final class Editor {
        Integer attempt;
        String executorId;
        Instant leaseExpiry;
        Integer exitCode;
        String error;
        String logKey;
        String log;
        Integer maxAttempts;
        Instant startedAt;

        Editor(Change c) {
            attempt = c.attempt;
            executorId = c.executorId;
            leaseExpiry = c.leaseExpiry;
            exitCode = c.exitCode;
            error = c.error;
            logKey = c.logKey;
            log = c.log;
            maxAttempts = c.maxAttempts;
            startedAt = c.startedAt;
        }
    }
}
