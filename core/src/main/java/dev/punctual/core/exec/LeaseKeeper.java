package dev.punctual.core.exec;

import dev.punctual.core.config.Execution;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunQueues;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.SharedRunWrites;
import dev.punctual.core.run.Transition;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Keeps a started attempt's lease: writes its launch (unless the binary ends first and its outcome records the start)
 * and then renews the lease and the message's invisibility every heartbeat, killing the binary when the attempt is
 * found to be another executor's, or when the lease cannot be renewed before it ends.
 */
final class LeaseKeeper {
    private static final System.Logger LOG = System.getLogger(AttemptRunner.class.getName());

    private final SharedRunWrites runs;
    private final RunQueues queue;
    private final Execution execution;
    private final Clock clock;
    private final String executorId;
    private final ScheduledExecutorService timer;

    LeaseKeeper(
            SharedRunWrites runs,
            RunQueues queue,
            Execution execution,
            Clock clock,
            String executorId,
            ScheduledExecutorService timer) {
        this.runs = runs;
        this.queue = queue;
        this.execution = execution;
        this.clock = clock;
        this.executorId = executorId;
        this.timer = timer;
    }

    /**
     * How long after a binary is let start its launch is written, if it is still running (see {@link
     * #launch}). Longer than most short runs take, so that they make one write; far shorter than a lease.
     */
    static final Duration LAUNCH_DELAY = Duration.ofSeconds(1);

    /**
     * How long to wait before the launch's write, for a lease that ends at {@code leaseEnd}: {@link #LAUNCH_DELAY},
     * or half the time left before the supervisor's deadline if that is shorter. A binary let start late in its
     * claim's lease (its job's read retried through a store outage, say) has its launch written, and its lease and
     * deadline moved on, before that deadline rather than after it. (Found by the fault suite: in scenario 14 the
     * supervisor killed two such binaries at their deadline, a second after their start and just before their
     * launch, and their runs ran again.)
     */
    Duration launchDelay(Instant leaseEnd) {
        Duration left = Duration.between(clock.instant(), leaseEnd.minus(Supervisor.margin(execution.lease())));
        Duration half = left.isNegative() ? Duration.ZERO : left.dividedBy(2);
        return half.compareTo(LAUNCH_DELAY) < 0 ? half : LAUNCH_DELAY;
    }

    /** Launch writes ({@link #launch}): each only waits on the store. */
    private static final ExecutorService LAUNCHES = Executors.newVirtualThreadPerTaskExecutor();

    /**
     * Writes the launch of a binary just let start, then starts its heartbeat; on a thread of its own, so that the
     * run's own thread awaits the binary meanwhile (a binary that exits during a store outage has its exit read at
     * once, as before the launch moved after the start). {@code startTaken} is taken by whichever of the launch and
     * the outcome writes the start first. Cancelling the future interrupts the launch's wait.
     *
     * <p>The launch is written once the binary is on its way, not before: nothing stands between the instant and the
     * start. It renews the lease, conditionally on our attempt, and marks the attempt launched. An executor that dies
     * before it lands leaves an attempt that looks unlaunched, which is given back (GIVE_BACK): its binary may have
     * started, and runs again under the same attempt number, at least once as promised. The other order would count
     * an attempt whose binary never ran. Not at once, though: {@link #LAUNCH_DELAY} later, and only if the binary is
     * still running then. One that ended sooner has its start written with its outcome, one write a run instead of
     * two (the executor's CPU a run is mostly its store calls: bench/README). The claim's lease covers the run from
     * its instant for a lease and this delay (RunWorker.grant); a run that ended sooner keeps its heartbeat while its
     * outcome is recorded ({@link #keep}). The window in which an executor's death leaves an
     * attempt that looks unlaunched is the delay and the write. A store error is tried again while the lease lasts;
     * the heartbeat starts only once the launch is written, so the two renewals never race.
     */
    Future<?> launch(
            Delivery message,
            Run run,
            ProcessRunner.Handle handle,
            Instant startedAt,
            AtomicBoolean startTaken,
            AtomicReference<Instant> held,
            StartTiming timing,
            AtomicReference<ScheduledFuture<?>> beat,
            Consumer<Instant> renewed) {
        return LAUNCHES.submit(() -> {
            try {
                Thread.sleep(launchDelay(held.get()).toMillis());
                if (!startTaken.compareAndSet(false, true)) {
                    // The binary has ended: its outcome records the start.
                    return;
                }
                Instant[] renewedAt = new Instant[1];
                boolean ours = WhileHeld.call(
                        clock,
                        held,
                        "writing the launch of " + run.jobId() + "/" + run.runId(),
                        Integer.MAX_VALUE,
                        () -> {
                            renewedAt[0] = clock.instant();
                            return runs.apply(Change.of(Transition.LAUNCH, run, startedAt)
                                            .withLease(executorId, renewedAt[0].plus(execution.lease())))
                                    .won();
                        });
                if (!ours) {
                    // Another executor holds the attempt (only after a freeze of about a lease): ours stops now.
                    handle.kill(RunWorker.FENCED);
                    return;
                }
                held.set(renewedAt[0].plus(execution.lease()));
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
        });
    }

    /**
     * Renews the claim's lease before the binary starts when less than half of it is left: a run that got to its
     * start late in its lease (its job's read after the claim retried through a store outage, say) would otherwise
     * start with too little lease to record its outcome through the next outage, and be run again by another
     * executor once the lease passed (found by the fault suite's scenario 14: a claim whose job read took 3.1 s of
     * a 4 s lease, then an outage at its outcome). Tried again while the lease lasts. False when the attempt is not
     * ours any more, or the lease ran out first: the binary must not start.
     */
    boolean renewIfShort(Delivery message, Run run, AtomicReference<Instant> held) throws InterruptedException {
        if (!Duration.between(clock.instant(), held.get())
                .minus(execution.lease().dividedBy(2))
                .isNegative()) {
            return true;
        }
        Instant[] at = new Instant[1];
        boolean ours;
        try {
            ours = WhileHeld.call(
                    clock,
                    held,
                    "renewing the lease of " + run.jobId() + "/" + run.runId() + " before its start",
                    Integer.MAX_VALUE,
                    () -> {
                        at[0] = clock.instant();
                        return runs.apply(Change.of(Transition.HEARTBEAT, run, at[0])
                                        .withLease(executorId, at[0].plus(execution.lease())))
                                .won();
                    });
        } catch (RuntimeException ranOut) {
            return false;
        }
        if (!ours) {
            return false;
        }
        held.set(at[0].plus(execution.lease()));
        try {
            queue.changeVisibility(message, (int) execution.lease().toSeconds());
        } catch (RuntimeException e) {
            // The message may come back to another executor meanwhile: its claim finds our live lease and leaves it.
            LOG.log(Level.WARNING, "cannot extend the message of " + run.jobId() + "/" + run.runId(), e);
        }
        return true;
    }

    /**
     * Extends the DynamoDB lease and the message's invisibility together. A lost heartbeat (another executor took
     * the run after our lease expired) kills our process: the newer attempt owns the run now.
     */
    /**
     * The heartbeat alone, for an attempt whose binary ended before its launch was written, while its outcome is
     * recorded (the first beat a heartbeat after now; usually cancelled before it, once the outcome is written).
     */
    ScheduledFuture<?> keep(Delivery message, Run run, ProcessRunner.Handle handle, AtomicReference<Instant> held) {
        return startHeartbeat(message, run, handle, held, expiry -> {});
    }

    private ScheduledFuture<?> startHeartbeat(
            Delivery message,
            Run run,
            ProcessRunner.Handle handle,
            AtomicReference<Instant> held,
            Consumer<Instant> renewed) {
        long period = execution.heartbeat().toMillis();
        return timer.scheduleAtFixedRate(
                () -> {
                    Instant now = clock.instant();
                    try {
                        Instant expiry = now.plus(execution.lease());
                        if (!runs.apply(Change.of(Transition.HEARTBEAT, run, now)
                                        .withLease(executorId, expiry))
                                .won()) {
                            handle.kill(RunWorker.FENCED);
                            return;
                        }
                        held.set(expiry);
                        renewed.accept(expiry);
                        queue.changeVisibility(message, (int) execution.lease().toSeconds());
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, "heartbeat of " + run.jobId() + "/" + run.runId() + " failed", e);
                        // Self-fencing: if the next beat would come after our lease ends, another executor may take the
                        // run over any moment; two attempts must never run at once, so ours stops now.
                        if (!now.plus(execution.heartbeat()).isBefore(held.get())) {
                            handle.kill(RunWorker.SELF_FENCED);
                        }
                    }
                },
                period,
                period,
                TimeUnit.MILLISECONDS);
    }
}
