package dev.punctual.core.exec;

import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.RunWorker.Outcome;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.Transition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * One claimed attempt, from the claim to its recorded outcome: the binary is fetched and verified, readied at a gate
 * in its sandbox, let start at its instant (its launch and renewed lease written as it starts), watched, heartbeated
 * and supervised, and its outcome and log recorded while the lease lasts. Every write is fenced on the attempt the claim granted.
 */
public final class AttemptRunner {
    private static final System.Logger LOG = System.getLogger(AttemptRunner.class.getName());

    private final RunRepository runs;
    private final JobRepository jobs;
    private final RunQueue queue;
    private final ArtifactStore store;
    private final BinaryCache cache;
    private final ProcessRunner runner;
    private final Backoff backoff;
    private final Settings settings;
    private final Clock clock;
    private final String executorId;
    private final Path workRoot;
    private final Sandbox sandbox;
    private final ScheduledExecutorService timer;
    /**
     * The runs' watches ({@link RunWatch}) on a thread of their own: a run that fills its directory with a million
     * files makes its own disk scan slow, and must not delay another run's heartbeat into self-fencing.
     */
    private final ScheduledExecutorService watchTimer;
    /** Kills a run from outside this JVM when its lease was not renewed in time ({@link Supervisor}). */
    private final Supervisor supervisor;

    private final Map<String, ProcessRunner.Handle> running = new ConcurrentHashMap<>();

    private final RunEvents events;
    private final Meters meters;

    public AttemptRunner(
            RunRepository runs,
            JobRepository jobs,
            RunQueue queue,
            ArtifactStore store,
            BinaryCache cache,
            ProcessRunner runner,
            Backoff backoff,
            Settings settings,
            Clock clock,
            String executorId,
            Path workRoot,
            ScheduledExecutorService timer,
            RunEvents events,
            Meters meters) {
        this.runs = runs;
        this.jobs = jobs;
        this.queue = queue;
        this.store = store;
        this.cache = cache;
        this.runner = runner;
        this.backoff = backoff;
        this.settings = settings;
        this.clock = clock;
        this.executorId = executorId;
        this.workRoot = workRoot;
        this.sandbox = Sandbox.create(settings.sandbox());
        this.events = events;
        this.meters = meters;
        this.timer = timer;
        try {
            this.supervisor = new Supervisor(workRoot.resolveSibling("deadlines"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.watchTimer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("run-watch-" + executorId).factory());
    }

    String executorId() {
        return executorId;
    }

    RunEvents events() {
        return events;
    }

    Meters meters() {
        return meters;
    }

    /** Runs the claimed attempt's binary and records its outcome (or leaves it, fenced, to the next attempt). */
    Outcome run(Message message, Run run, Job stored, StartTiming timing, Callable<Optional<Job>> recheck)
            throws InterruptedException {
        // A triggered run may carry its own args and env: checked and run as the job's would be.
        Job job = stored.overridden(run.overrides().args(), run.overrides().env());
        int attempt = run.attempt();
        String logKey = ArtifactStore.logKey(run.jobId(), run.runId(), attempt);
        Path workDir = null;
        Path logFile = null;
        ProcessRunner.Handle handle = null;
        Sandbox.Lease lease = null;
        AtomicReference<ScheduledFuture<?>> beat = new AtomicReference<>();
        Future<?> launching = null;
        // Who writes the binary's start: the launch, LAUNCH_DELAY after it, or the outcome of a binary that ended
        // before that. Whichever takes it first (the other then leaves it).
        AtomicBoolean startTaken = new AtomicBoolean();
        Instant startedAt = null;
        // Until when this executor's attempt surely holds the run: its lease as last renewed. The result is
        // retried until then; after it, another executor may have taken the run over.
        AtomicReference<Instant> held = new AtomicReference<>(run.leaseExpiry());
        ScheduledFuture<?> watching = null;
        LogShipper shipping = null;
        String supervised = null;
        // What the job asked for, within this executor's maxima (the API checked against its own, which an
        // operator may have set higher than this executor's).
        RunLimits limits = job.limits().within(settings.limits());
        Integer exitCode = null;
        String error;
        String killed = null;
        boolean retryable = true;
        List<String> refused = new ArrayList<>(LaunchCheck.problems(job));
        // Secret values are read only here, by key, at the last moment: they are in no index and no job read.
        Map<String, String> secrets = job.secretNames().isEmpty() ? Map.of() : jobs.secrets(job.id());
        refused.addAll(LaunchCheck.variables("secrets", secrets));
        if (!refused.isEmpty()) {
            // The job as stored is not one the API would have accepted: it was changed behind the API's back.
            // Retrying cannot help, so the run is DEAD at once, with what was refused.
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
        boolean letThrough = false;
        try {
            Path binary;
            if (sandbox.active()) {
                // The executable copy, made from the cache (hashed there and as copied) once per binary.
                lease = sandbox.open(
                        sandbox.executable(
                                job.owner(), job.binarySha256(), () -> cache.fetch(job.owner(), job.binarySha256())),
                        limits.diskMb());
                workDir = lease.dir();
                binary = lease.binary();
            } else {
                binary = cache.fetch(job.owner(), job.binarySha256());
                workDir = Files.createTempDirectory(Files.createDirectories(workRoot), "run-");
            }
            timing.mark("sandbox ready");
            // The log is the executor's, out of the binary's reach when it runs as its own user.
            logFile = Files.createDirectories(workRoot).resolve(workDir.getFileName() + ".log");
            Map<String, String> env = new LinkedHashMap<>(job.env());
            env.putAll(secrets);
            env.put("SCHEDULER_JOB_ID", run.jobId());
            env.put("SCHEDULER_RUN_ID", run.runId());
            env.put("SCHEDULER_ATTEMPT", Integer.toString(attempt));
            env.put("SCHEDULER_SCHEDULED_AT", run.scheduledAt().toString());
            // The same for every attempt of this occurrence: a binary can make its side effects idempotent on it.
            env.put("SCHEDULER_IDEMPOTENCY_KEY", run.jobId() + "@" + run.occurrence());
            String name = run.jobId() + "." + run.runId() + "." + attempt;
            Integer uid = lease == null ? null : lease.uid();
            // Armed before the process starts, by its uid: an executor frozen right after the start (before it
            // knows the binary's process group) is still covered. (Found by the fault suite: an executor frozen
            // within milliseconds of starting four binaries had armed none, and all four outlived its lease.)
            // Without a sandbox there is no uid, and the deadline covers the run only once its group is known.
            try {
                supervisor.arm(name, null, uid, supervisorDeadline(held.get()));
                supervised = name;
            } catch (IOException e) {
                // Self-fencing still holds the run; only a frozen JVM escapes it.
                LOG.log(Level.WARNING, "run " + name + " has no supervisor", e);
            }
            // Everything a start costs (the processes that set up its session, namespace, limits and user) is paid
            // here, before the instant and the launch: the binary itself waits at a gate until the release below.
            // An executor that dies before the release takes the gated process with it (its parent-death signal):
            // the binary never ran, and the attempt, not launched, is given back.
            handle = runner.startGated(
                    binary,
                    job.args(),
                    env,
                    workDir,
                    logFile,
                    lease == null
                            ? new ProcessRunner.Confinement(null, limits, false)
                            : sandbox.confinement(lease, limits));
            timing.mark("spawned");
            // The claim may win up to CLAIM_TOLERANCE before the run's due time (the executor claims ahead, and the
            // message's due time, waited out before the claim, may not be the run's): the binary never starts early.
            WhileHeld.waitUntil(clock, run.scheduledAt());
            timing.mark("waited");
            if (recheck != null && clock.instant().isAfter(run.scheduledAt().plus(RunRepository.RELEASE_WINDOW))) {
                // Claimed ahead, but here later than a delete or pause waits for this run to start
                // (JobContext.awaitCommittedStarts): the job is read again, as for a run claimed late.
                Outcome stopped = recheck(message, run, recheck);
                if (stopped != null) {
                    return stopped;
                }
                timing.mark("job checked again");
            }
            if (!clock.instant().isBefore(held.get().minus(Supervisor.margin(settings.lease())))) {
                // Frozen since the claim for about a lease: the run may be another executor's by now.
                throw new FencedBeforeStart();
            }
            letThrough = handle.release();
            if (!letThrough) {
                // Its log says why, e.g. the helper's line when the run's filesystem could not be mounted.
                throw new IOException("its process ended before the binary was let start (exit "
                        + handle.exitCode().map(String::valueOf).orElse("unknown") + ")");
            }
            startedAt = clock.instant();
            running.put(run.jobId() + "/" + run.runId(), handle);
            timing.mark("started");
            events.emit(new RunEvent(
                    startedAt,
                    run.jobId(),
                    run.runId(),
                    attempt,
                    RunEvent.STARTED,
                    executorId,
                    Duration.between(run.scheduledAt(), startedAt).toMillis(),
                    null,
                    null));
            long group = handle.pid();
            try {
                if (supervised != null && !supervisor.extend(name, group, uid, supervisorDeadline(held.get()))) {
                    // The deadline passed before the binary started (this JVM was frozen in between): the lease
                    // may be another executor's by now, so the binary must not run on.
                    handle.kill(RunWorker.SELF_FENCED);
                }
            } catch (IOException e) {
                // The binary runs already: it must be awaited whatever happens here. Self-fencing still holds it.
                LOG.log(Level.WARNING, "cannot give the supervisor the process group of " + name, e);
            }
            ProcessRunner.Handle started = handle;
            Instant at = startedAt;
            launching = LAUNCHES.submit(() ->
                    launchThenBeat(message, run, started, at, startTaken, held, timing, beat, expiry -> {
                        try {
                            supervisor.extend(name, group, uid, supervisorDeadline(expiry));
                        } catch (IOException e) {
                            LOG.log(Level.WARNING, "cannot move the supervisor's deadline of " + name, e);
                        }
                    }));
            Sandbox.Lease box = lease;
            Path dir = workDir;
            if (box == null || box.image() == null) {
                // Without a filesystem of its own, the run's disk is held by looking at it.
                RunWatch watch = new RunWatch(
                        limits, box == null ? () -> Sandbox.sizeOf(dir) : () -> sandbox.diskUsed(box), handle);
                watching = watchTimer.scheduleAtFixedRate(
                        watch::check, RunWatch.PERIOD.toMillis(), RunWatch.PERIOD.toMillis(), TimeUnit.MILLISECONDS);
            }
            // The output so far, readable through the API while the binary runs (best effort, never holding it up).
            shipping = new LogShipper(
                            store,
                            run.jobId(),
                            run.runId(),
                            attempt,
                            logFile,
                            started::written,
                            settings.logChunkInterval(),
                            clock)
                    .start();
            ProcessRunner.Result result = handle.await(Duration.ofSeconds(job.timeoutSeconds()));
            exitCode = result.exitCode();
            killed = result.killedBecause();
            if (supervisor.disarm(name) && exitCode == 128 + 9) {
                // This JVM was frozen or starved past the deadline: the supervisor killed the binary before the
                // lease could pass on. The attempt is not ours to record. (A binary that had exited by itself
                // before that is recorded as usual: the write is fenced on our attempt, so it only wins if no
                // other executor has taken the run over. Found by the chaos run: two runs that had exited 0
                // while their executor was frozen were run again for nothing.)
                killed = RunWorker.SELF_FENCED;
            }
            error = killed != null ? killed : exitCode == 0 ? null : "exited with code " + exitCode;
            String limit = killed == null && exitCode != 0 ? RunWatch.explainExit(exitCode, limits) : null;
            if (limit == null
                    && killed == null
                    && exitCode != 0
                    && lease != null
                    && lease.image() != null
                    && RunDisks.full(lease.image())) {
                // Its writes failed with ENOSPC: what the binary made of that is its own exit code. (Every process
                // of its uid is gone, so its filesystem was unmounted, and its superblock written.)
                limit = "its disk was full (diskMb=" + limits.diskMb() + ")";
            }
            if (limit != null) {
                error += ": " + limit;
            }
            if (killed == null && job.nonRetryableExitCodes().contains(exitCode)) {
                // The job says retrying cannot help with this exit code: dead at once, attempts left or not.
                retryable = false;
                error += " (non-retryable)";
            }
        } catch (FencedBeforeStart e) {
            killed = RunWorker.FENCED;
            error = RunWorker.FENCED;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "run " + run.jobId() + "/" + run.runId() + " could not start", e);
            error = "could not start: " + e.getMessage();
        } finally {
            if (handle != null && !letThrough) {
                // Held at its gate and never let through: ended unstarted (its exit is the gate's).
                handle.kill(RunWorker.NOT_LET_START);
                try {
                    handle.await(Duration.ofSeconds(30));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (supervised != null) {
                supervisor.disarm(supervised);
            }
            if (watching != null) {
                watching.cancel(false);
            }
            if (shipping != null) {
                // The log stored next supersedes the chunks: readers of an ended attempt read it, not them.
                shipping.stop();
            }
            running.remove(run.jobId() + "/" + run.runId());
            if (lease != null) {
                sandbox.close(lease);
            }
        }
        // The heartbeat goes on until the outcome is recorded: while the log is uploaded and the result written
        // (retried through a passing outage), the run stays ours.
        try {
            Instant folded = null;
            if (launching != null && startTaken.compareAndSet(false, true)) {
                // Ended before its launch was due: the outcome records the start, one write instead of two.
                launching.cancel(true);
                folded = startedAt;
                timing.mark("ended before its launch").log(run.jobId() + "/" + run.runId() + " attempt " + attempt);
            } else if (launching != null) {
                // The outcome is never written before the launch (nor its run's startedAt lost to the race).
                try {
                    launching.get();
                } catch (ExecutionException e) {
                    LOG.log(Level.WARNING, "writing the launch of " + run.jobId() + "/" + run.runId() + " failed", e);
                }
            }
            // An attempt to be retried keeps its log in the bucket, under its attempt number: the run item holds
            // only the latest attempt's, which the retry replaces. Retries are few, so most runs still need no
            // S3 request for a short log.
            boolean retried = retried(run, error, RunWorker.SHUTDOWN.equals(killed), retryable);
            Log storedLog = storeLog(logKey, logFile, !retried, held);
            deleteQuietly(workDir, logFile);
            if (RunWorker.FENCED.equals(killed) || RunWorker.SELF_FENCED.equals(killed)) {
                // Not ours to record any more (or we cannot tell): the lease expires, and the message or the
                // sweeper brings the run back as a new attempt.
                return Outcome.FENCED;
            }
            Integer code = exitCode;
            String err = error;
            boolean again = retryable;
            boolean released = RunWorker.SHUTDOWN.equals(killed);
            Instant started = folded;
            return WhileHeld.call(
                    clock,
                    held,
                    "recording the outcome of " + run.jobId() + "/" + run.runId(),
                    Integer.MAX_VALUE,
                    () -> settle(message, run, job, code, err, storedLog, released, again, started));
        } finally {
            ScheduledFuture<?> beating = beat.get();
            if (beating != null) {
                beating.cancel(false);
            }
        }
    }

    /**
     * Whether an attempt that ended with {@code error} is tried again: it failed, was not given back ({@code
     * released}), may be retried and has attempts left. One that failed otherwise is DEAD.
     */
    private static boolean retried(Run run, String error, boolean released, boolean retryable) {
        return error != null && !released && retryable && run.attempt() < run.maxAttempts();
    }

    private Outcome settle(
            Message message,
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
            queue.delete(message.receiptHandle());
            return Outcome.SUCCEEDED;
        }
        if (dead) {
            queue.delete(message.receiptHandle());
            return Outcome.DEAD;
        }
        int delay = released ? 0 : (int) Math.max(1, backoff.after(attempt).toSeconds());
        queue.changeVisibility(message.receiptHandle(), delay);
        return released ? Outcome.RELEASED : Outcome.FAILED;
    }

    /**
     * Writes the launch of a binary just let start, then starts its heartbeat; on a thread of its own, so that the
     * run's own thread awaits the binary meanwhile (a binary that exits during a store outage has its exit read at
     * once, as before the launch moved after the start).
     *
     * <p>The launch is written once the binary is on its way, not before: nothing stands between the instant and the
     * start. It renews the lease, conditionally on our attempt, and marks the attempt launched. An executor that dies
     * before it lands leaves an attempt that looks unlaunched, which is given back (GIVE_BACK): its binary may have
     * started, and runs again under the same attempt number, at least once as promised. The other order would count
     * an attempt whose binary never ran. Not at once, though: {@link #LAUNCH_DELAY} later, and only if the binary is
     * still running then. One that ended sooner has its start written with its outcome, one write a run instead of
     * two (the executor's CPU a run is mostly its store calls: bench/README). The claim's lease covers the run from
     * its instant for a lease, which the delay is well within. The window in which an executor's death leaves an
     * attempt that looks unlaunched is the delay and the write. A store error is tried again while the lease lasts;
     * the heartbeat starts only once the launch is written, so the two renewals never race.
     */
    private void launchThenBeat(
            Message message,
            Run run,
            ProcessRunner.Handle handle,
            Instant startedAt,
            AtomicBoolean startTaken,
            AtomicReference<Instant> held,
            StartTiming timing,
            AtomicReference<ScheduledFuture<?>> beat,
            java.util.function.Consumer<Instant> renewed) {
        try {
            Thread.sleep(LAUNCH_DELAY.toMillis());
            if (!startTaken.compareAndSet(false, true)) {
                // The binary has ended: its outcome records the start.
                return;
            }
            Instant[] renewedAt = new Instant[1];
            boolean ours = WhileHeld.call(
                    clock, held, "writing the launch of " + run.jobId() + "/" + run.runId(), Integer.MAX_VALUE, () -> {
                        renewedAt[0] = clock.instant();
                        return runs.apply(Change.of(Transition.LAUNCH, run, startedAt)
                                        .withLease(executorId, renewedAt[0].plus(settings.lease())))
                                .won();
                    });
            if (!ours) {
                // Another executor holds the attempt (only after a freeze of about a lease): ours stops now.
                handle.kill(RunWorker.FENCED);
                return;
            }
            held.set(renewedAt[0].plus(settings.lease()));
            renewed.accept(held.get());
            timing.mark("launch written").log(run.jobId() + "/" + run.runId() + " attempt " + run.attempt());
            beat.set(startHeartbeat(message, run, handle, held, renewed));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // The lease ran out while the store was unreachable: the run may be another executor's, so a binary
            // still running stops (as the heartbeat's self-fencing would). One that has exited is recorded if the
            // outcome's write, fenced on our attempt, still can be.
            if (handle.running()) {
                handle.kill(RunWorker.SELF_FENCED);
            }
        }
    }

    /** Launch writes ({@link #launchThenBeat}): each only waits on the store. */
    private static final ExecutorService LAUNCHES = Executors.newVirtualThreadPerTaskExecutor();

    /**
     * Reads the job again before a start that comes late ({@code recheck}); null when the binary may start. A job
     * deleted or paused meanwhile withdraws the run (CANCELLED, its claim undone); a job replaced since hands the
     * attempt back, and its message comes back at once for a claim that reads the new definition.
     */
    private Outcome recheck(Message message, Run run, Callable<Optional<Job>> read) throws InterruptedException {
        Optional<Job> current;
        try {
            current = read.call();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            // The store could not be read while the lease lasted: whether the job may run is unknown, and the run
            // may be another executor's by now. Not started; the lease ends, and the message brings it back.
            LOG.log(Level.WARNING, "run " + run.jobId() + "/" + run.runId() + ": job check failed", e);
            throw new FencedBeforeStart();
        }
        Optional<String> stopped = RunWorker.whyNotRunnable(current.map(Job::state));
        if (stopped.isPresent()) {
            return withdraw(message, run, current.orElse(null), stopped.get());
        }
        return null;
    }

    /**
     * Gives the claimed attempt back before its binary started (FAILED, the attempt not used up) and makes its
     * message visible again after {@code visibleInSeconds}, for a claim that reads the job as it is then.
     */
    Outcome handBack(Message message, Run run, String why, int visibleInSeconds) {
        Change change = Change.of(Transition.RELEASE, run, clock.instant())
                .withExecutor(executorId)
                .withError(why);
        if (!runs.apply(change).won()) {
            return Outcome.FENCED;
        }
        events.emit(RunEvent.of(change, executorId));
        queue.changeVisibility(message.receiptHandle(), visibleInSeconds);
        return Outcome.RELEASED;
    }

    /**
     * The claimed run's job was found deleted or paused before its binary started: the run is CANCELLED, its claim
     * (and launch) undone, and its message deleted.
     */
    Outcome withdraw(Message message, Run run, Job job, String why) {
        Change change = Change.of(Transition.WITHDRAW, run, clock.instant())
                .withExecutor(executorId)
                .withError(why);
        if (runs.apply(change).won()) {
            events.emit(change, job, executorId);
        }
        queue.delete(message.receiptHandle());
        return Outcome.CANCELLED;
    }

    /** The wall-clock instant (ms) at which the supervisor kills a run whose lease ends at {@code leaseEnd}. */
    private long supervisorDeadline(Instant leaseEnd) {
        // The lease is in this executor's clock; the supervisor reads the wall clock.
        Duration left = Duration.between(clock.instant(), leaseEnd).minus(Supervisor.margin(settings.lease()));
        return System.currentTimeMillis() + left.toMillis();
    }

    /** Stops the supervisor and the watches (the executor is stopping; no run is left to watch). */
    void close() {
        supervisor.close();
        watchTimer.shutdownNow();
        sandbox.removeExecutables();
    }

    /**
     * Extends the DynamoDB lease and the message's invisibility together. A lost heartbeat (another executor took
     * the run after our lease expired) kills our process: the newer attempt owns the run now.
     */
    private ScheduledFuture<?> startHeartbeat(
            Message message,
            Run run,
            ProcessRunner.Handle handle,
            AtomicReference<Instant> held,
            java.util.function.Consumer<Instant> renewed) {
        long period = settings.heartbeat().toMillis();
        return timer.scheduleAtFixedRate(
                () -> {
                    Instant now = clock.instant();
                    try {
                        Instant expiry = now.plus(settings.lease());
                        if (!runs.apply(Change.of(Transition.HEARTBEAT, run, now)
                                        .withLease(executorId, expiry))
                                .won()) {
                            handle.kill(RunWorker.FENCED);
                            return;
                        }
                        held.set(expiry);
                        renewed.accept(expiry);
                        queue.changeVisibility(
                                message.receiptHandle(), (int) settings.lease().toSeconds());
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, "heartbeat of " + run.jobId() + "/" + run.runId() + " failed", e);
                        // Self-fencing: if the next beat would come after our lease ends, another executor may take the
                        // run over any moment; two attempts must never run at once, so ours stops now.
                        if (!now.plus(settings.heartbeat()).isBefore(held.get())) {
                            handle.kill(RunWorker.SELF_FENCED);
                        }
                    }
                },
                period,
                period,
                TimeUnit.MILLISECONDS);
    }

    /** The run's lease passed to another executor before its binary started: it must not start here. */
    private static final class FencedBeforeStart extends RuntimeException {
        FencedBeforeStart() {
            super(RunWorker.FENCED, null, false, false);
        }
    }

    /** Kills every running binary, e.g. when the shutdown grace period is over; their runs are released. */
    void killAll(String reason) {
        running.values().forEach(h -> Thread.ofVirtual().start(() -> h.kill(reason)));
    }

    int runningCount() {
        return running.size();
    }

    /**
     * How long after a binary is let start its launch is written, if it is still running (see {@link
     * #launchThenBeat}). Longer than most short runs take, so that they make one write; far shorter than a lease.
     */
    static final Duration LAUNCH_DELAY = Duration.ofSeconds(1);

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
            if (mayInline && settings.inlineLogBytes() > 0 && Files.size(logFile) <= settings.inlineLogBytes()) {
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
