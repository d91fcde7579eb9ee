package dev.punctual.core.exec;

import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.RunWorker.Outcome;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.queue.RunQueues;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.SharedRunWrites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
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
    private final RunQueues queue;
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
    /** The run writes of this executor's threads, sharing calls when several are asked at once. */
    private final SharedRunWrites writes;

    private final LeaseKeeper leases;
    private final Settlement settlement;

    public AttemptRunner(
            RunRepository runs,
            JobRepository jobs,
            RunQueues queue,
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
        this.writes = new SharedRunWrites(runs, executorId);
        this.leases = new LeaseKeeper(writes, queue, settings, clock, executorId, timer);
        this.settlement = new Settlement(writes, queue, store, backoff, settings, clock, executorId, events, meters);
        this.watchTimer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("run-watch-" + executorId).factory());
    }

    String executorId() {
        return executorId;
    }

    SharedRunWrites writes() {
        return writes;
    }

    RunEvents events() {
        return events;
    }

    Meters meters() {
        return meters;
    }

    /**
     * Runs the claimed attempt's binary and records its outcome (or leaves it, fenced, to the next attempt);
     * {@code processesGone} is called once the binary and every process of it have ended (or it never started),
     * before the outcome is written: what a run slot covers.
     */
    Outcome run(
            Message message,
            Run run,
            Job stored,
            StartTiming timing,
            Callable<Optional<Job>> recheck,
            Runnable processesGone)
            throws InterruptedException {
        // A triggered run may carry its own args and env: checked and run as the job's would be.
        Job job = stored.overridden(run.overrides().args(), run.overrides().env());
        int attempt = run.attempt();
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
            return settlement.refuse(message, run, job, refused, held);
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
            Map<String, String> env = LaunchCheck.environment(job, secrets, run);
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
                Outcome stopped = settlement.recheck(message, run, recheck);
                if (stopped != null) {
                    return stopped;
                }
                timing.mark("job checked again");
            }
            if (!clock.instant().isBefore(held.get().minus(Supervisor.margin(settings.lease())))
                    || !leases.renewIfShort(message, run, held)) {
                // Frozen since the claim for about a lease: the run may be another executor's by now. (Or got here
                // late in it, and its renewal lost to another executor or ran out through a store outage.)
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
                    null,
                    RunQueues.laneOf(message).label()));
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
            launching = leases.launch(message, run, started, at, startTaken, held, timing, beat, expiry -> {
                try {
                    supervisor.extend(name, group, uid, supervisorDeadline(expiry));
                } catch (IOException e) {
                    LOG.log(Level.WARNING, "cannot move the supervisor's deadline of " + name, e);
                }
            });
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
            Settlement.Ending ending = Settlement.explain(exitCode, killed, job, limits, lease);
            error = ending.error();
            retryable = ending.retryable();
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
            // Nothing of the run is left to run: its slot may start the next one while this outcome is written.
            processesGone.run();
        }
        // The heartbeat goes on until the outcome is recorded: while the log is uploaded and the result written
        // (retried through a passing outage), the run stays ours.
        try {
            if (launching != null && startTaken.compareAndSet(false, true)) {
                // Ended before its launch was due: the outcome records the start, one write instead of two. The
                // lease is kept meanwhile, as a launch would have started doing: an outcome retried through
                // outages one after another must not outlive the claim's lease (found by the fault suite).
                launching.cancel(true);
                launching = null;
                beat.set(leases.keep(message, run, handle, held));
                timing.mark("ended before its launch").log(run.jobId() + "/" + run.runId() + " attempt " + attempt);
            }
            return settlement.record(
                    message,
                    run,
                    job,
                    new Settlement.Ending(exitCode, error, killed, retryable),
                    launching,
                    startedAt,
                    workDir,
                    logFile,
                    held);
        } finally {
            ScheduledFuture<?> beating = beat.get();
            if (beating != null) {
                beating.cancel(false);
            }
        }
    }

    /** {@link Settlement#handBack}. */
    Outcome handBack(Message message, Run run, String why, int visibleInSeconds) {
        return settlement.handBack(message, run, why, visibleInSeconds);
    }

    /** {@link Settlement#withdraw}. */
    Outcome withdraw(Message message, Run run, Job job, String why) {
        return settlement.withdraw(message, run, job, why);
    }

    /** The wall-clock instant (ms) at which the supervisor kills a run whose lease ends at {@code leaseEnd}. */
    private long supervisorDeadline(Instant leaseEnd) {
        // The lease is in this executor's clock; the supervisor reads the wall clock.
        Duration left = Duration.between(clock.instant(), leaseEnd).minus(Supervisor.margin(settings.lease()));
        return System.currentTimeMillis() + left.toMillis();
    }

    /** Stops the supervisor and the watches (the executor is stopping; no run is left to watch). */
    void close() {
        writes.close();
        supervisor.close();
        watchTimer.shutdownNow();
        sandbox.removeExecutables();
    }

    /** The run's lease passed to another executor before its binary started: it must not start here. */
    static final class FencedBeforeStart extends RuntimeException {
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
}
