package dev.punctual.core.notify;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Publishes through {@code bus} and also posts each notice whose job asks for it to the job's webhook, each on a
 * virtual thread of its own, at most {@value #IN_FLIGHT} at once: a slow receiver holds up only its own posts. A
 * notice that finds them all busy is logged whole at WARNING, not posted, rather than holding up the run that wrote
 * it.
 */
public final class WebhookNotices implements RunNotices {
    private static final System.Logger LOG = System.getLogger(WebhookNotices.class.getName());
    static final int IN_FLIGHT = 64;

    private final RunNotices bus;
    private final Webhooks webhooks;
    private final Semaphore slots = new Semaphore(IN_FLIGHT);
    private final ExecutorService posts = Executors.newVirtualThreadPerTaskExecutor();

    public WebhookNotices(RunNotices bus, Webhooks webhooks) {
        this.bus = bus;
        this.webhooks = webhooks;
    }

    @Override
    public void publish(Notice notice) {
        bus.publish(notice);
        if (notice.webhook() == null) {
            return;
        }
        if (!slots.tryAcquire()) {
            LOG.log(
                    Level.WARNING,
                    "webhook of job " + notice.jobId() + " not posted (" + IN_FLIGHT + " posts under way): "
                            + notice.detailJson());
            return;
        }
        posts.execute(() -> {
            try {
                webhooks.deliver(notice);
            } catch (InterruptedException e) {
                LOG.log(
                        Level.WARNING,
                        "webhook of job " + notice.jobId() + " not posted (stopping): " + notice.detailJson());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "webhook of job " + notice.jobId() + " not posted: " + e, e);
            } finally {
                slots.release();
            }
        });
    }

    /** The bus's flush, then every post under way (all slots free), within {@code within} in all. */
    @Override
    public boolean flush(Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        boolean published = bus.flush(within);
        long left = Math.max(0, deadline - System.nanoTime());
        if (!slots.tryAcquire(IN_FLIGHT, left, TimeUnit.NANOSECONDS)) {
            return false;
        }
        slots.release(IN_FLIGHT);
        return published;
    }

    @Override
    public void close(Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        bus.close(within);
        posts.shutdown();
        if (!posts.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            posts.shutdownNow();
        }
    }
}
