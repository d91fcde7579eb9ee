package dev.punctual.core.queue;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Deletes of handled messages, gathered and sent ten a call ({@code DeleteMessageBatch}) rather than one by one: a
 * delete is sent at most a linger ({@link #lingerFor}) after it was asked for, or at once with nine others.
 *
 * <p>Every delete is of a message whose run has already been written to where it goes next (finished, withdrawn,
 * skipped, or sent again as a new message), so a delete that is late, or never sent (the executor killed, the call
 * failed), costs only a second delivery: the message comes back after its visibility timeout, its run is found done
 * and the message is deleted then. Nothing waits for a delete.
 */
final class PendingDeletes {
    private static final System.Logger LOG = System.getLogger(PendingDeletes.class.getName());

    /** The longest any delete waits for others to share its call. */
    static final Duration MAX_LINGER = Duration.ofSeconds(10);

    /** The shortest; also the linger of a queue whose user names none. */
    static final Duration MIN_LINGER = Duration.ofMillis(100);

    /**
     * How long a delete may wait for others to share its call, given the executor's lease and heartbeat: a quarter
     * of the least visibility a handled message has left when its delete is asked for, so that it is gone well
     * before it could come back; at most {@link #MAX_LINGER}. That least is the lease (the visibility a receive and
     * every heartbeat give it) less a heartbeat period, less the time a message is received ahead of its run
     * ({@link RunQueue#EARLY_DELIVERY} and a second of rounding). With the defaults (60 s, 20 s): 9.5 s, so that at
     * a run a second per executor one call deletes about ten messages, where a second's linger deleted one or two.
     */
    static Duration lingerFor(Duration lease, Duration heartbeat) {
        Duration least = lease.minus(heartbeat).minus(RunQueue.EARLY_DELIVERY).minusSeconds(1);
        Duration quarter = least.dividedBy(4);
        if (quarter.compareTo(MAX_LINGER) > 0) {
            return MAX_LINGER;
        }
        return quarter.compareTo(MIN_LINGER) < 0 ? MIN_LINGER : quarter;
    }

    private final Consumer<List<String>> sendBatch;
    private final Duration linger;
    private final List<String> pending = new ArrayList<>();
    private long oldestNanos;
    private Thread sender;

    /** {@code sendBatch} deletes up to ten receipt handles in one call; none waits longer than {@code linger}. */
    PendingDeletes(Consumer<List<String>> sendBatch, Duration linger) {
        this.sendBatch = sendBatch;
        this.linger = linger;
    }

    synchronized void add(String receiptHandle) {
        if (pending.isEmpty()) {
            oldestNanos = System.nanoTime();
        }
        pending.add(receiptHandle);
        if (sender == null) {
            sender = Thread.ofPlatform().daemon().name("sqs-deletes").start(this::sendLoop);
        }
        notifyAll();
    }

    /** Sends every pending delete now, and returns once they are sent (or have failed). */
    void flush() {
        List<String> all;
        synchronized (this) {
            all = new ArrayList<>(pending);
            pending.clear();
        }
        for (int i = 0; i < all.size(); i += RunQueue.MAX_BATCH) {
            send(all.subList(i, Math.min(all.size(), i + RunQueue.MAX_BATCH)));
        }
    }

    private void sendLoop() {
        while (true) {
            List<String> batch;
            try {
                batch = nextBatch();
            } catch (InterruptedException e) {
                return;
            }
            send(batch);
        }
    }

    /** Waits until ten deletes are pending or the oldest has waited the linger; takes up to ten. */
    private synchronized List<String> nextBatch() throws InterruptedException {
        while (true) {
            if (pending.size() >= RunQueue.MAX_BATCH) {
                break;
            }
            if (pending.isEmpty()) {
                wait();
                continue;
            }
            long left = linger.toNanos() - (System.nanoTime() - oldestNanos);
            if (left <= 0) {
                break;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        List<String> head = pending.subList(0, Math.min(pending.size(), RunQueue.MAX_BATCH));
        List<String> batch = new ArrayList<>(head);
        head.clear();
        oldestNanos = System.nanoTime();
        return batch;
    }

    private void send(List<String> batch) {
        if (batch.isEmpty()) {
            return;
        }
        try {
            sendBatch.accept(batch);
        } catch (RuntimeException e) {
            // Their runs are done: the messages come back after their visibility timeout, are found done and
            // deleted then.
            LOG.log(
                    Level.WARNING,
                    "deleting " + batch.size() + " handled messages failed; they will come back once",
                    e);
        }
    }
}
