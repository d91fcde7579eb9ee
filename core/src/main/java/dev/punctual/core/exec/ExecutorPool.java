package dev.punctual.core.exec;

import dev.punctual.core.queue.RunQueue;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Long-polls the queue and runs up to {@code concurrency} runs at once. It only asks SQS for as many messages as
 * it has free slots, so a message is never held invisible by an executor that cannot start it.
 */
public final class ExecutorPool implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ExecutorPool.class.getName());

    private final RunWorker worker;
    private final RunQueue queue;
    private final int concurrency;
    private final int waitSeconds;
    private final int visibilitySeconds;
    private final Duration shutdownGrace;
    private final Semaphore slots;
    private final ExecutorService workers;
    private final Thread receiver;
    private volatile boolean receiving = true;

    public ExecutorPool(
            RunWorker worker,
            RunQueue queue,
            int concurrency,
            int waitSeconds,
            int visibilitySeconds,
            Duration shutdownGrace) {
        this.worker = worker;
        this.queue = queue;
        this.concurrency = concurrency;
        this.waitSeconds = waitSeconds;
        this.visibilitySeconds = visibilitySeconds;
        this.shutdownGrace = shutdownGrace;
        this.slots = new Semaphore(concurrency);
        this.workers = Executors.newFixedThreadPool(
                concurrency, Thread.ofPlatform().name("run-", 0).factory());
        this.receiver =
                Thread.ofPlatform().name("receiver-" + worker.executorId()).unstarted(this::receiveLoop);
    }

    public ExecutorPool start() {
        receiver.start();
        return this;
    }

    private void receiveLoop() {
        while (receiving) {
            int taken = 0;
            try {
                slots.acquire();
                taken = 1;
                while (taken < Math.min(RunQueue.MAX_BATCH, concurrency) && slots.tryAcquire()) {
                    taken++;
                }
                List<Message> messages = queue.receive(taken, waitSeconds, visibilitySeconds);
                for (Message m : messages) {
                    if (!receiving) {
                        // Received during shutdown: hand it straight back.
                        queue.changeVisibility(m.receiptHandle(), 0);
                        slots.release();
                        continue;
                    }
                    workers.execute(() -> {
                        try {
                            worker.handle(m);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } catch (RuntimeException e) {
                            // The message stays in flight and reappears after its visibility timeout.
                            LOG.log(Level.WARNING, "handling message " + m.messageId() + " failed", e);
                        } finally {
                            slots.release();
                        }
                    });
                }
                slots.release(taken - messages.size());
            } catch (InterruptedException e) {
                slots.release(taken);
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                slots.release(taken);
                LOG.log(Level.WARNING, "receive failed; retrying", e);
                pause();
            }
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
            worker.close();
        }
    }
}
