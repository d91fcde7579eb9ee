package dev.punctual.core.exec;

import dev.punctual.core.firing.Priority;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.queue.RunQueues;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Receives from every lane's queue and runs up to {@code concurrency} runs at once.
 *
 * <p>Each lane has a receiver of its own. An idle lane (its last receive brought nothing) long-polls for one
 * message; a busy one asks, without waiting, for several, and goes back to long-polling once a receive comes back
 * empty, so that a lane that has just run dry does not keep room from the others. Room for messages and run slots are
 * both granted among the lanes that wait for them by weight ({@link LanePermits}): {@code high} first, but never
 * so that a lower lane stops being served.
 *
 * <p>It holds up to twice {@code concurrency} messages: a message is received up to two seconds before its run is due
 * ({@link RunQueue#EARLY_DELIVERY}) and waits for its instant, then for a run slot ({@link RunWorker.Slot}), without
 * holding one; a run gives its slot back once its processes are gone, and its message is held on while its outcome
 * is written. Under load it asks SQS for messages only once {@code concurrency} (at most ten) can be held, so one
 * receive fetches several; idle, it asks for as many as it can hold. A held message stays invisible to other
 * executors only while its visibility timeout (the lease) lasts: one that waits longer for a slot is delivered again,
 * and the claim lets one of the two take it.
 */
public final class ExecutorPool implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ExecutorPool.class.getName());

    /** Room for the idle lanes' listening receives, beyond the busy lane's ({@link Receiver}). */
    private static final int LISTENERS = Priority.values().length - 1;

    private final RunWorker worker;
    private final RunQueues queues;
    private final int waitSeconds;
    private final int visibilitySeconds;
    private final Duration shutdownGrace;
    /** Messages received and not yet handled: running, or waiting for their instant or a slot. */
    private final LanePermits held;
    /**
     * Run slots: claimed runs, from the claim until their processes are gone (the outcome is written outside the
     * slot, its message still held).
     */
    private final LanePermits slots;
    /** How many messages a receive asks for at least, once some are held. */
    private final int batch;

    private final int concurrency;

    private final ExecutorService workers;
    private final List<Receiver> receivers;
    private volatile boolean receiving = true;

    public ExecutorPool(
            RunWorker worker,
            RunQueues queues,
            int concurrency,
            int waitSeconds,
            int visibilitySeconds,
            Duration shutdownGrace) {
        this.worker = worker;
        this.queues = queues;
        this.waitSeconds = waitSeconds;
        this.visibilitySeconds = visibilitySeconds;
        this.shutdownGrace = shutdownGrace;
        // One more for each lane beyond the first: an idle lane listens for one message (a long poll of one), and
        // that must not take room from a busy lane's.
        this.held = new LanePermits(2 * concurrency + LISTENERS);
        this.slots = new LanePermits(concurrency);
        this.concurrency = concurrency;
        this.batch = Math.min(RunQueue.MAX_BATCH, concurrency);
        this.workers = Executors.newFixedThreadPool(
                2 * concurrency + LISTENERS, Thread.ofPlatform().name("run-", 0).factory());
        this.receivers = Arrays.stream(Priority.values()).map(Receiver::new).toList();
    }

    public ExecutorPool start() {
        worker.meters().slotsAdded(concurrency);
        receivers.forEach(r -> r.thread.start());
        return this;
    }

    /** One lane's receiver. */
    private final class Receiver {
        final Priority lane;
        final Thread thread;
        /** When the receive under way was sent ({@link System#nanoTime}), or 0 while none is. */
        volatile long sentAt;

        Receiver(Priority lane) {
            this.lane = lane;
            this.thread = Thread.ofPlatform()
                    .name("receiver-" + lane.label() + "-" + worker.executorId())
                    .unstarted(this::loop);
        }

        private void loop() {
            try {
                receive();
            } finally {
                held.hungry(lane, false);
            }
        }

        private void receive() {
            boolean idle = true;
            while (receiving) {
                int taken = 0;
                try {
                    taken = idle ? held.acquire(lane, 1, 1) : held.acquire(lane, batch, RunQueue.MAX_BATCH);
                    List<Delivery> messages;
                    sentAt = System.nanoTime() | 1;
                    try {
                        messages = queues.receive(lane, taken, idle ? waitSeconds : 0, visibilitySeconds);
                    } finally {
                        sentAt = 0;
                    }
                    idle = messages.isEmpty();
                    // All it asked for: the lane likely has more, and wants room while its next receive is under way.
                    held.hungry(lane, messages.size() == taken);
                    for (Delivery m : messages) {
                        if (!receiving) {
                            // Received during shutdown: hand it straight back.
                            queues.changeVisibility(m, 0);
                            held.release(1);
                            continue;
                        }
                        workers.execute(() -> handle(m));
                    }
                    held.release(taken - messages.size());
                } catch (InterruptedException e) {
                    // Its hunger ends with the loop (loop()).
                    held.release(taken);
                    Thread.currentThread().interrupt();
                    return;
                } catch (RuntimeException e) {
                    held.release(taken);
                    held.hungry(lane, false);
                    LOG.log(Level.WARNING, "receive from the " + lane.label() + " lane failed; retrying", e);
                    pause();
                }
            }
        }

        boolean healthy() {
            long sent = sentAt;
            return thread.isAlive()
                    && (sent == 0
                            || System.nanoTime() - sent
                                    < Duration.ofSeconds(waitSeconds)
                                            .plus(STUCK_AFTER)
                                            .toNanos());
        }
    }

    /**
     * How long past its long poll one receive may take before the pool is taken for stuck: longer than the SDK's
     * retries of a failing receive take.
     */
    static final Duration STUCK_AFTER = Duration.ofSeconds(60);

    /**
     * Whether the pool still takes runs: its receiver is alive and not stuck in one receive (longer than its long
     * poll plus {@link #STUCK_AFTER}). A receiver that waits for room, every message it may hold taken by long runs,
     * is healthy. False once it stops receiving.
     */
    public boolean healthy() {
        return receiving && receivers.stream().allMatch(Receiver::healthy);
    }

    /** One message's run slot: taken at most once, given back at most once (when its processes are gone, or last). */
    private final class MessageSlot implements RunWorker.Slot {
        private final AtomicBoolean inSlot = new AtomicBoolean();
        private final Priority lane;

        MessageSlot(Priority lane) {
            this.lane = lane;
        }

        @Override
        public boolean take() throws InterruptedException {
            if (!receiving) {
                return false;
            }
            slots.acquire(lane, 1, 1);
            inSlot.set(true);
            worker.meters().slotTaken();
            // Stopping began while it waited: give the slot back, and the run to another executor.
            return receiving;
        }

        @Override
        public void free() {
            if (inSlot.compareAndSet(true, false)) {
                worker.meters().slotFreed();
                slots.release(1);
            }
        }
    }

    private void handle(Delivery m) {
        MessageSlot slot = new MessageSlot(m.lane());
        try {
            worker.handle(m, slot);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // The message stays in flight and reappears after its visibility timeout.
            LOG.log(Level.WARNING, "handling message " + m.messageId() + " failed", e);
        } finally {
            slot.free();
            held.release(1);
        }
    }

    private static void pause() {
        try {
            // Back off after a failed receive so an outage does not become a hot loop.
            TimeUnit.SECONDS.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Graceful stop: no new receives; running binaries get the grace period to finish, then are killed and their
     * runs released for another executor.
     */
    @Override
    public void close() {
        receiving = false;
        workers.shutdown();
        try {
            if (!workers.awaitTermination(shutdownGrace.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(Level.INFO, worker.runningCount() + " runs still running after the grace period: killing");
                worker.killAll(RunWorker.SHUTDOWN);
                workers.awaitTermination(30, TimeUnit.SECONDS);
            }
            for (Receiver r : receivers) {
                r.thread.join(Duration.ofSeconds(waitSeconds + 5).toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            queues.flushDeletes();
            worker.close();
            worker.meters().slotsAdded(-concurrency);
        }
    }
}
