package dev.punctual.core.exec;

import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.exec.RunWorker.Outcome;
import dev.punctual.core.job.Job;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunQueues;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.SharedRunWrites;
import dev.punctual.core.run.Transition;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How a claimed attempt ends in the store: its outcome (succeeded, failed with a retry after the backoff, dead, or
 * given back on shutdown) with its log, or, before its binary started, handed back or withdrawn. Every write is fenced
 * on the attempt, and the message is settled (deleted, or made visible again) only after the write has won.
 */
final class Settlement {
    private static final System.Logger LOG = System.getLogger(AttemptRunner.class.getName());

    private final SharedRunWrites runs;
    private final RunQueues queue;
    private final ArtifactStore store;
    private final Backoff backoff;
    /** Logs of at most this many bytes are kept on the run instead of in S3 (0: none). */
    private final long inlineLogBytes;

    private final Clock clock;
    private final String executorId;
    private final RunEvents events;
    private final Meters meters;

    Settlement(
            SharedRunWrites runs,
            RunQueues queue,
            ArtifactStore store,
            Backoff backoff,
            long inlineLogBytes,
            Clock clock,
            String executorId,
            RunEvents events,
            Meters meters) {
        this.runs = runs;
        this.queue = queue;
        this.store = store;
        this.backoff = backoff;
        this.inlineLogBytes = inlineLogBytes;
        this.clock = clock;
        this.executorId = executorId;
        this.events = events;
        this.meters = meters;
    }

    /** How an attempt ended, as its outcome is written: {@code killed} says why the executor ended it, if it did. */
    record Ending(Integer exitCode, String error, String killed, boolean retryable) {}

    /**
     * What an exit means for the run: its error (none for 0; what killed it; a limit it hit; a full disk) and whether
     * it may be retried (not when the job calls the exit code non-retryable).
     */
    static Ending explain(int exitCode, String killed, Job job, RunLimits limits, Sandbox.Lease lease) {
        String error = killed != null ? killed : exitCode == 0 ? null : "exited with code " + exitCode;
        String limit = killed == null && exitCode != 0 ? RunWatch.explainExit(exitCode, limits) : null;
        if (limit == null
                && killed == null
                && exitCode != 0
                && lease != null
                && lease.image() != null
                && RunDisks.full(lease.image())) {
            // Its writes failed with ENOSPC: what the binary made of that is its own exit code. (Every process of
            // its uid is gone, so its filesystem was unmounted, and its superblock written.)
            limit = "its disk was full (diskMb=" + limits.diskMb() + ")";
        }
        if (limit != null) {
            error += ": " + limit;
        }
        boolean retryable = true;
        if (killed == null && job.nonRetryableExitCodes().contains(exitCode)) {
            // The job says retrying cannot help with this exit code: dead at once, attempts left or not.
            retryable = false;
            error += " (non-retryable)";
        }
        return new Ending(exitCode, error, killed, retryable);
    }

    /**
     * The job as stored is not one the API would have accepted ({@code refused}: what {@link LaunchCheck} found): it
     * was changed behind the API's back. Retrying cannot help, so the run is DEAD at once, with what was refused.
     */
    Outcome refuse(Delivery message, Run run, Job job, List<String> refused, AtomicReference<Instant> held)
            throws InterruptedException {
        LOG.log(Level.WARNING, "run " + run.jobId() + "/" + run.runId() + " " + RunWorker.REFUSED + refused);
        String shown = String.join("; ", refused.subList(0, Math.min(5, refused.size())))
                + (refused.size() > 5 ? "; and " + (refused.size() - 5) + " more" : "");
        return WhileHeld.call(
                clock,
                held,
                "recording the refusal of " + run.jobId() + "/" + run.runId(),
                Integer.MAX_VALUE,
                () -> settle(message, run, job, null, RunWorker.REFUSED + shown, null, false, false, null));
    }

    /**
     * Records the outcome of an attempt that was started or tried: waits for its launch's write ({@code launching};
     * null: none to wait for), stores its log, removes its files and writes the outcome while the lease lasts.
     * {@code start} is when the binary started (null: it never did); the outcome writes it where the launch did not
     * (the binary ended before its launch was due: one write a run instead of two), and for an attempt that will
     * be tried again, whose history keeps it. FENCED when it is not ours to record any more.
     */
    Outcome record(
            Delivery message,
            Run run,
            Job job,
            Ending end,
            Future<?> launching,
            Instant start,
            Path workDir,
            Path logFile,
            AtomicReference<Instant> held)
            throws InterruptedException {
        if (launching != null) {
            // The outcome is never written before the launch (nor its run's startedAt lost to the race).
            try {
                launching.get();
            } catch (ExecutionException e) {
                LOG.log(Level.WARNING, "writing the launch of " + run.jobId() + "/" + run.runId() + " failed", e);
            }
        }
        // An attempt to be retried keeps its log in the bucket, under its attempt number: the run item holds only the
        // latest attempt's, which the retry replaces. Retries are few, so most runs still need no S3 request for a
        // short log.
        boolean released = RunWorker.SHUTDOWN.equals(end.killed());
        boolean retried = retried(run, end.error(), released, end.retryable());
        Log storedLog =
                storeLog(ArtifactStore.logKey(run.jobId(), run.runId(), run.attempt()), logFile, !retried, held);
        deleteQuietly(workDir, logFile);
        if (RunWorker.FENCED.equals(end.killed()) || RunWorker.SELF_FENCED.equals(end.killed())) {
            // Not ours to record any more (or we cannot tell): the lease expires, and the message or the sweeper
            // brings the run back as a new attempt.
            return Outcome.FENCED;
        }
        Instant written = launching == null || retried || released ? start : null;
        return WhileHeld.call(
                clock,
                held,
                "recording the outcome of " + run.jobId() + "/" + run.runId(),
                Integer.MAX_VALUE,
                () -> settle(
                        message, run, job, end.exitCode(), end.error(), storedLog, released, end.retryable(), written));
    }

    /**
     * Whether an attempt that ended with {@code error} is tried again: it failed, was not given back ({@code
     * released}), may be retried and has attempts left. One that failed otherwise is DEAD.
     */
    private static boolean retried(Run run, String error, boolean released, boolean retryable) {
        return error != null && !released && retryable && run.attempt() < run.maxAttempts();
    }

    Outcome settle(
            Delivery message,
            Run run,
            Job job,
            Integer exitCode,
            String error,
            Log log,
            boolean released,
            boolean retryable,
            Instant startedAt) {
        int attempt = run.attempt();
        boolean dead = error != null && !released && !retried(run, error, released, retryable);
        Transition outcome = error == null
                ? Transition.SUCCEED
                : released ? Transition.RELEASE : dead ? Transition.DIE : Transition.FAIL;
        Change change = Change.of(outcome, run, clock.instant())
                .withExecutor(executorId)
                .withExitCode(exitCode)
                .withError(error)
                .withStartedAt(startedAt);
        if (log != null) {
            change = log.key() != null ? change.withLogKey(log.key()) : change.withLog(log.text());
        }
        if (!runs.apply(change).won()) {
            return Outcome.FENCED;
        }
        events.emit(change, job, executorId);
        if (outcome == Transition.FAIL) {
            meters.retry();
        }
        if (outcome == Transition.SUCCEED) {
            queue.delete(message);
            return Outcome.SUCCEEDED;
        }
        if (dead) {
            queue.delete(message);
            return Outcome.DEAD;
        }
        int delay = released ? 0 : (int) Math.max(1, backoff.after(attempt).toSeconds());
        queue.changeVisibility(message, delay);
        return released ? Outcome.RELEASED : Outcome.FAILED;
    }

    /**
     * Reads the job again before a start that comes late ({@code recheck}); null when the binary may start. A job
     * deleted or paused meanwhile withdraws the run (CANCELLED, its claim undone); a job replaced since hands the
     * attempt back, and its message comes back at once for a claim that reads the new definition.
     */
    Outcome recheck(Delivery message, Run run, Callable<Optional<Job>> read) throws InterruptedException {
        Optional<Job> current;
        try {
            current = read.call();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            // The store could not be read while the lease lasted: whether the job may run is unknown, and the run
            // may be another executor's by now. Not started; the lease ends, and the message brings it back.
            LOG.log(Level.WARNING, "run " + run.jobId() + "/" + run.runId() + ": job check failed", e);
            throw new AttemptRunner.FencedBeforeStart();
        }
        Optional<String> stopped = JobCheck.whyNotRunnable(current.map(Job::state));
        if (stopped.isPresent()) {
            return withdraw(message, run, current.orElse(null), stopped.get());
        }
        return null;
    }

    /**
     * Gives the claimed attempt back before its binary started (FAILED, the attempt not used up) and makes its
     * message visible again after {@code visibleInSeconds}, for a claim that reads the job as it is then.
     */
    Outcome handBack(Delivery message, Run run, String why, int visibleInSeconds) {
        Change change = Change.of(Transition.RELEASE, run, clock.instant())
                .withExecutor(executorId)
                .withError(why);
        if (!runs.apply(change).won()) {
            return Outcome.FENCED;
        }
        events.emit(RunEvent.of(change, executorId));
        queue.changeVisibility(message, visibleInSeconds);
        return Outcome.RELEASED;
    }

    /**
     * The claimed run's job was found deleted or paused before its binary started: the run is CANCELLED, its claim
     * (and launch) undone, and its message deleted.
     */
    Outcome withdraw(Delivery message, Run run, Job job, String why) {
        Change change = Change.of(Transition.WITHDRAW, run, clock.instant())
                .withExecutor(executorId)
                .withError(why);
        if (runs.apply(change).won()) {
            events.emit(change, job, executorId);
        }
        queue.delete(message);
        return Outcome.CANCELLED;
    }

    /** How many times a log upload is tried: it must not hold up the outcome, which matters more. */
    static final int LOG_TRIES = 3;

    /** Where an attempt's log went: an S3 key, or, being small, its text for the run item itself. */
    record Log(String key, String text) {}

    /**
     * A log of at most {@code inlineLogBytes} is kept on the run (no S3 request at all); a larger one is uploaded.
     * Null: no log, or its upload failed (the outcome is recorded without it rather than not at all).
     */
    private Log storeLog(String key, Path logFile, boolean mayInline, AtomicReference<Instant> held)
            throws InterruptedException {
        if (logFile == null || !Files.exists(logFile)) {
            return null;
        }
        try {
            if (mayInline && inlineLogBytes > 0 && Files.size(logFile) <= inlineLogBytes) {
                // Decoded as the API decodes a stored log: a sequence cut or malformed becomes U+FFFD.
                return new Log(null, new String(Files.readAllBytes(logFile), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot read log " + logFile, e);
            return null;
        }
        try {
            return WhileHeld.call(clock, held, "uploading log " + key, LOG_TRIES, () -> {
                store.putLog(key, logFile);
                return new Log(key, null);
            });
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static void deleteQuietly(Path dir, Path file) {
        if (file != null) {
            Sandbox.deleteTree(file);
        }
        Sandbox.deleteTree(dir);
    }
}
