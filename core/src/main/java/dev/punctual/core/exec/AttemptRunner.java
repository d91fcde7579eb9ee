package dev.punctual.core.exec;

import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.RunWorker.Outcome;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunQueues;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.SharedRunWrites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
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

/**
 * One claimed attempt, from the claim to its recorded outcome: the binary is fetched and verified, readied at a gate
 * in its sandbox, let start at its instant (its launch and renewed lease written as it starts), watched, heartbeated
 * and supervised, and its outcome and log recorded while the lease lasts. Every write is fenced on the attempt the claim granted.
 */
public final class AttemptRunner {
    private static final System.Logger LOG = System.getLogger(AttemptRunner.class.getName());

    private final JobRepository jobs;
    private final ArtifactStore store;
    private final Settings settings;
    private final Clock clock;
    private final String executorId;
    private final Sandbox sandbox;
    /**
     * The runs' watches ({@link RunWatch}) on a thread of their own: a run that fills its directory with a million
     * files makes its own disk scan slow, and must not delay another run's heartbeat into self-fencing.
     */
    private final ScheduledExecutorService watchTimer;
    /** Kills a run from outside this JVM when its lease was not renewed in time ({@link Supervisor}). */
    private final Supervisor supervisor;
    /** The attempt's first phase: binary, sandbox, deadline and gated process. */
    private final Preparation preparation;

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
        this.jobs = jobs;
        this.store = store;
        this.settings = settings;
        this.clock = clock;
        this.executorId = executorId;
        this.sandbox = Sandbox.create(settings.sandbox());
        this.events = events;
        this.meters = meters;
        try {
            this.supervisor = new Supervisor(workRoot.resolveSibling("deadlines"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.preparation = new Preparation(
                sandbox, cache, runner, supervisor, settings.execution().lease(), clock, workRoot);
        this.writes = new SharedRunWrites(runs, executorId);
        this.leases = new LeaseKeeper(writes, queue, settings.execution(), clock, executorId, timer);
        this.settlement = new Settlement(
                writes, queue, store, backoff, settings.storage().inlineLogBytes(), clock, executorId, events, meters);
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
            Delivery message,
            Run run,
            Job stored,
            StartTiming timing,
            Callable<Optional<Job>> recheck,
            Runnable processesGone)
            throws InterruptedException {
        // A triggered run may carry its own args and env: checked and run as the job's would be.
        Job job = stored.overridden(run.overrides().args(), run.overrides().env());
        int attempt = run.attempt();
        ProcessRunner.Handle handle = null;
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
        Preparation.Prepared prepared = new Preparation.Prepared();
        boolean letThrough = false;
        try {
            preparation.prepare(prepared, run, job, limits, secrets, held.get(), timing);
            handle = prepared.handle();
            // The claim may win up to CLAIM_TOLERANCE before the run's due time (the executor claims ahead, and the
            // message's due time, waited out before the claim, may not be the run's): the binary never starts early.
            WhileHeld.waitUntil(clock, run.scheduledAt());
            timing.mark("waited");
            if (recheck != null && clock.instant().isAfter(run.scheduledAt().plus(RunRepository.RELEASE_WINDOW))) {
                // Claimed ahead, but here later than a delete or pause waits for this run to start
                // (JobStops.awaitCommittedStarts): the job is read again, as for a run claimed late.
                Outcome stopped = settlement.recheck(message, run, recheck);
                if (stopped != null) {
                    return stopped;
                }
                timing.mark("job checked again");
            }
            if (!clock.instant()
                            .isBefore(held.get()
                                    .minus(Supervisor.margin(
                                            settings.execution().lease())))
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
                    message.lane().label()));
            long group = handle.pid();
            try {
                if (!preparation.extend(prepared, group, held.get())) {
                    // The deadline passed before the binary started (this JVM was frozen in between): the lease
                    // may be another executor's by now, so the binary must not run on.
                    handle.kill(RunWorker.SELF_FENCED);
                }
            } catch (IOException e) {
                // The binary runs already: it must be awaited whatever happens here. Self-fencing still holds it.
                LOG.log(Level.WARNING, "cannot give the supervisor the process group of " + Preparation.name(run), e);
            }
            ProcessRunner.Handle started = handle;
            Preparation.Prepared readied = prepared;
            launching = leases.launch(message, run, started, startedAt, startTaken, held, timing, beat, expiry -> {
                try {
                    preparation.extend(readied, group, expiry);
                } catch (IOException e) {
                    LOG.log(Level.WARNING, "cannot move the supervisor's deadline of " + Preparation.name(run), e);
                }
            });
            Sandbox.Lease box = prepared.lease();
            Path dir = prepared.workDir();
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
                            prepared.logFile(),
                            started::written,
                            settings.storage().logChunkInterval(),
                            clock)
                    .start();
            ProcessRunner.Result result = handle.await(Duration.ofSeconds(job.timeoutSeconds()));
            exitCode = result.exitCode();
            killed = result.killedBecause();
            if (preparation.disarm(prepared) && exitCode == 128 + 9) {
                // This JVM was frozen or starved past the deadline: the supervisor killed the binary before the
                // lease could pass on. The attempt is not ours to record. (A binary that had exited by itself
                // before that is recorded as usual: the write is fenced on our attempt, so it only wins if no
                // other executor has taken the run over. Found by the chaos run: two runs that had exited 0
                // while their executor was frozen were run again for nothing.)
                killed = RunWorker.SELF_FENCED;
            }
            Settlement.Ending ending = Settlement.explain(exitCode, killed, job, limits, box);
            error = ending.error();
            retryable = ending.retryable();
        } catch (FencedBeforeStart e) {
            killed = RunWorker.FENCED;
            error = RunWorker.FENCED;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "run " + run.jobId() + "/" + run.runId() + " could not start", e);
            error = "could not start: " + e.getMessage();
        } finally {
            preparation.stop(prepared, letThrough);
            if (watching != null) {
                watching.cancel(false);
            }
            if (shipping != null) {
                // The log stored next supersedes the chunks: readers of an ended attempt read it, not them.
                shipping.stop();
            }
            running.remove(run.jobId() + "/" + run.runId());
            preparation.close(prepared);
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
                    prepared.workDir(),
                    prepared.logFile(),
                    held);
        } finally {
            ScheduledFuture<?> beating = beat.get();
            if (beating != null) {
                beating.cancel(false);
            }
        }
    }

    /** {@link Settlement#handBack}. */
    Outcome handBack(Delivery message, Run run, String why, int visibleInSeconds) {
        return settlement.handBack(message, run, why, visibleInSeconds);
    }

    /** {@link Settlement#withdraw}. */
    Outcome withdraw(Delivery message, Run run, Job job, String why) {
        return settlement.withdraw(message, run, job, why);
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
