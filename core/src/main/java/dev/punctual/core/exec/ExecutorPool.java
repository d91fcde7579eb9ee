package dev.punctual.core.exec;

import dev.punctual.core.queue.RunQueue;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Long-polls the queue and runs up to {@code concurrency} runs at once.
 *
 * <p>It holds up to twice that many messages: a message is received up to two seconds before its run is due
 * ({@link RunQueue#EARLY_DELIVERY}) and waits for its instant, then for a run slot ({@link RunWorker.Slot}), without
 * holding one; a run gives its slot back once its processes are gone, and its message is held on while its outcome
 * is written. Under load it asks SQS for messages only once {@code concurrency} (at most ten) can be held, so one
 * receive fetches several; idle, it asks for as many as it can hold. A held message stays invisible to other
 * executors only while its visibility timeout (the lease) lasts: one that waits longer for a slot is delivered again,
 * and the claim lets one of the two take it.
 */
public final class ExecutorPool implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ExecutorPool.class.getName());

    private final RunWorker worker;
    private final RunQueue queue;
    private final int waitSeconds;
    private final int visibilitySeconds;
    private final Duration shutdownGrace;
    /** Messages received and not yet handled: running, or waiting for their instant or a slot. */
    private final Semaphore held;
    /**
     * Run slots: claimed runs, from the claim until their processes are gone (the outcome is written outside the
     * slot, its message still held).
     */
    private final Semaphore slots;
    /** How many messages a receive asks for at least, once some are held. */
    private final int batch;

    private final int concurrency;

    private final ExecutorService workers;
    private final Thread receiver;
    private volatile boolean receiving = true;
    /** When the receive under way was sent ({@link System#nanoTime}), or 0 while none is. */
    private volatile long receiveSentAt;

    public ExecutorPool(
            RunWorker worker,
            RunQueue queue,
            int concurrency,
            int waitSeconds,
            int visibilitySeconds,
            Duration shutdownGrace) {
        this.worker = worker;
        this.queue = queue;
        this.waitSeconds = waitSeconds;
        this.visibilitySeconds = visibilitySeconds;
        this.shutdownGrace = shutdownGrace;
        this.held = new Semaphore(2 * concurrency);
        this.slots = new Semaphore(concurrency);
        this.concurrency = concurrency;
        this.batch = Math.min(RunQueue.MAX_BATCH, concurrency);
        this.workers = Executors.newFixedThreadPool(
                2 * concurrency, Thread.ofPlatform().name("run-", 0).factory());
        this.receiver =
                Thread.ofPlatform().name("receiver-" + worker.executorId()).unstarted(this::receiveLoop);
    }

    public ExecutorPool start() {
        worker.meters().slotsAdded(concurrency);
        receiver.start();
        return this;
    }

    private void receiveLoop() {
        while (receiving) {
            int taken = 0;
            try {
                held.acquire(batch);
                taken = batch;
                while (taken < RunQueue.MAX_BATCH && held.tryAcquire()) {
                    taken++;
                }
                List<Message> messages;
                receiveSentAt = System.nanoTime() | 1;
                try {
                    messages = queue.receive(taken, waitSeconds, visibilitySeconds);
                } finally {
                    receiveSentAt = 0;
                }
                for (Message m : messages) {
                    if (!receiving) {
                        // Received during shutdown: hand it straight back.
                        queue.changeVisibility(m.receiptHandle(), 0);
                        held.release();
                        continue;
                    }
                    workers.execute(() -> handle(m));
                }
                held.release(taken - messages.size());
            } catch (InterruptedException e) {
                held.release(taken);
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                held.release(taken);
                LOG.log(Level.WARNING, "receive failed; retrying", e);
                pause();
            }
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
        long sent = receiveSentAt;
        return receiving
                && receiver.isAlive()
                && (sent == 0
                        || System.nanoTime() - sent
                                < Duration.ofSeconds(waitSeconds)
                                        .plus(STUCK_AFTER)
                                        .toNanos());
    }

    /** One message's run slot: taken at most once, given back at most once (when its processes are gone, or last). */
    private final class MessageSlot implements RunWorker.Slot {
        private final AtomicBoolean inSlot = new AtomicBoolean();

        @Override
        public boolean take() throws InterruptedException {
            if (!receiving) {
                return false;
            }
            slots.acquire();
            inSlot.set(true);
            worker.meters().slotTaken();
            // Stopping began while it waited: give the slot back, and the run to another executor.
            return receiving;
        }

        @Override
        public void free() {
            if (inSlot.compareAndSet(true, false)) {
                worker.meters().slotFreed();
                slots.release();
            }
        }
    }

    private void handle(Message m) {
        MessageSlot slot = new MessageSlot();
        try {
            worker.handle(m, slot);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // The message stays in flight and reappears after its visibility timeout.
            LOG.log(Level.WARNING, "handling message " + m.messageId() + " failed", e);
        } finally {
            slot.free();
            held.release();
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
            receiver.join(Duration.ofSeconds(waitSeconds + 5).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            queue.flushDeletes();
            worker.close();
            worker.meters().slotsAdded(-concurrency);
        }
    }
}
