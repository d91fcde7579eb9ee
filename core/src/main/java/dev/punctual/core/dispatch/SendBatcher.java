package dev.punctual.core.dispatch;

import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.queue.RunSender;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Gathers the sends of a dispatch's concurrent job chains into SQS batches of ten, so that running chains side by
 * side costs no more SendMessageBatch calls than one chain sending ten at a time did.
 *
 * <p>A chain's {@link #send} blocks until its message is out (or failed). The batch goes when it is full, when every
 * chain still running is waiting here (no more messages can come before one of them is answered), or when its
 * oldest message has waited {@link #MAX_WAIT_NANOS}; whichever waiting thread sees that first sends it, outside the
 * lock, so several batches may be in flight at once. There is no thread of its own.
 */
final class SendBatcher {
    private static final System.Logger LOG = System.getLogger(SendBatcher.class.getName());
    /** The longest a message waits for its batch to fill while other chains are busy elsewhere (a store call). */
    static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final RunSender queue;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Deque<Pending> pending = new ArrayDeque<>();
    /** Chains expected and not finished; of those, how many are waiting in {@link #send}. */
    private int active;

    private int waiting;

    SendBatcher(RunSender queue, Clock clock) {
        this.queue = queue;
        this.clock = clock;
    }

    private static final class Pending {
        final RunMessage message;
        final long since = System.nanoTime();
        boolean done;
        boolean sent;

        Pending(RunMessage message) {
            this.message = message;
        }
    }

    /**
     * {@code chains} more chains will run, started or not: until each {@link #leave}s, a batch may wait for its
     * message. Counted before any starts: a chain counted only as it started would find itself the only one, and
     * send its message alone, while the next were still being started (59 calls for 100 runs on a busy machine).
     */
    void expect(int chains) {
        lock.lock();
        try {
            active += chains;
        } finally {
            lock.unlock();
        }
    }

    /** A chain is done, or will not run: the others need not wait for it any more. */
    void leave() {
        lock.lock();
        try {
            active--;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Sends {@code m} in a batch; whether SQS took it. Called by an expected chain before it {@link #leave}s. */
    boolean send(RunMessage m) {
        Pending p = new Pending(m);
        lock.lock();
        try {
            pending.add(p);
            waiting++;
            changed.signalAll();
            while (!p.done) {
                long waited = System.nanoTime() - pending.peekFirst().since;
                if (pending.size() >= RunQueue.MAX_BATCH || waiting >= active || waited >= MAX_WAIT_NANOS) {
                    List<Pending> batch = new ArrayList<>();
                    while (!pending.isEmpty() && batch.size() < RunQueue.MAX_BATCH) {
                        batch.add(pending.poll());
                    }
                    lock.unlock();
                    Set<Integer> ok;
                    try {
                        ok = sendNow(batch);
                    } finally {
                        lock.lock();
                    }
                    for (int i = 0; i < batch.size(); i++) {
                        batch.get(i).sent = ok.contains(i);
                        batch.get(i).done = true;
                    }
                    changed.signalAll();
                } else {
                    changed.awaitNanos(MAX_WAIT_NANOS - waited);
                }
                // Another thread may have taken this message's batch; with nothing left pending, just wait for it.
                while (!p.done && pending.isEmpty()) {
                    changed.awaitUninterruptibly();
                }
            }
            return p.sent;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // Left pending, another chain sends it; this one reports it unsent, so the run stays SCHEDULED and a
            // later sweep sends it again (a duplicate message is harmless).
            return false;
        } finally {
            waiting--;
            lock.unlock();
        }
    }

    private Set<Integer> sendNow(List<Pending> batch) {
        try {
            return queue.sendBatch(batch.stream().map(b -> b.message).toList(), clock.instant());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "sending a batch of " + batch.size() + " runs failed; a later sweep retries", e);
            return Set.of();
        }
    }
}
