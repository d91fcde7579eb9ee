package dev.punctual.core.notify;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResponse;
import software.amazon.awssdk.services.eventbridge.model.PutEventsResultEntry;

/**
 * Publishes notices (run outcomes, overdue jobs) on an EventBridge bus, from a thread of its own: up to ten a {@code PutEvents} call (its
 * limit; the price is per event, so batching saves requests, not money). An entry the bus refuses, or a call that
 * fails, is tried again with backoff, {@value #TRIES} times in all; then each notice not published is logged, whole,
 * at WARNING. So is one that finds the queue full ({@value #CAPACITY} waiting: the bus is down or throttling for
 * long), rather than holding up the executor.
 */
public final class EventBusNotices implements RunNotices {
    private static final System.Logger LOG = System.getLogger(EventBusNotices.class.getName());

    /** {@code PutEvents} takes at most ten entries. */
    static final int BATCH = 10;

    static final int TRIES = 4;
    static final int CAPACITY = 10_000;
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(200);

    private final EventBridgeClient client;
    private final String busName;
    private final String source;
    private final LinkedBlockingQueue<Notice> queue = new LinkedBlockingQueue<>(CAPACITY);
    private final Thread sender;
    private final Object progress = new Object();
    // Guarded by progress: how many notices were queued, and how many are settled (published or logged as not).
    private long queued;
    private long settled;
    private volatile boolean closed;

    public EventBusNotices(EventBridgeClient client, String busName, String source) {
        this.client = client;
        this.busName = busName;
        this.source = source;
        this.sender = Thread.ofPlatform().daemon().name("run-notices").start(this::sendLoop);
    }

    @Override
    public void publish(Notice notice) {
        synchronized (progress) {
            if (!closed && queue.offer(notice)) {
                queued++;
                return;
            }
        }
        LOG.log(
                Level.WARNING,
                "notice not published (" + (closed ? "stopping" : "queue full") + "): " + notice.detailJson());
    }

    @Override
    public boolean flush(Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        synchronized (progress) {
            long target = queued;
            while (settled < target) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(progress, left);
            }
            return true;
        }
    }

    @Override
    public void close(Duration within) throws InterruptedException {
        flush(within);
        synchronized (progress) {
            closed = true;
        }
        sender.interrupt();
        sender.join(within.toMillis() + 1);
        List<Notice> left = new ArrayList<>();
        queue.drainTo(left);
        left.forEach(n -> LOG.log(Level.WARNING, "notice not published (stopping): " + n.detailJson()));
    }

    private void sendLoop() {
        while (!closed) {
            List<Notice> batch = new ArrayList<>(BATCH);
            try {
                Notice first = queue.poll(1, TimeUnit.SECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                send(batch);
            } catch (InterruptedException e) {
                batch.forEach(n -> LOG.log(Level.WARNING, "notice not published (stopping): " + n.detailJson()));
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "notices not published: " + e, e);
            } finally {
                synchronized (progress) {
                    settled += batch.size();
                    progress.notifyAll();
                }
            }
        }
    }

    /** Sends {@code batch}, trying again what fails; logs what never goes. */
    private void send(List<Notice> batch) throws InterruptedException {
        List<Notice> pending = batch;
        String why = null;
        for (int attempt = 0; attempt < TRIES && !pending.isEmpty(); attempt++) {
            if (attempt > 0) {
                Thread.sleep(FIRST_BACKOFF.multipliedBy(1L << (attempt - 1)).toMillis());
            }
            List<Notice> sending = pending;
            try {
                PutEventsResponse r = client.putEvents(
                        b -> b.entries(sending.stream().map(this::entry).toList()));
                if (r.failedEntryCount() == null || r.failedEntryCount() == 0) {
                    return;
                }
                // Result entries come in the order of the request's; a failed one carries an error code.
                List<Notice> failed = new ArrayList<>();
                for (int i = 0; i < r.entries().size() && i < sending.size(); i++) {
                    PutEventsResultEntry e = r.entries().get(i);
                    if (e.errorCode() != null) {
                        failed.add(sending.get(i));
                        why = e.errorCode() + ": " + e.errorMessage();
                    }
                }
                pending = failed;
            } catch (SdkException e) {
                why = e.toString();
            }
        }
        for (Notice n : pending) {
            LOG.log(Level.WARNING, "notice not published after " + TRIES + " tries (" + why + "): " + n.detailJson());
        }
    }

    private PutEventsRequestEntry entry(Notice n) {
        return PutEventsRequestEntry.builder()
                .eventBusName(busName)
                .source(source)
                .detailType(n.detailType())
                .time(n.at())
                .detail(n.detailJson())
                .build();
    }
}
