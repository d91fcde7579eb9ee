package dev.punctual.core.notify;

import java.time.Duration;

/**
 * Where run outcomes and overdue jobs are published ({@link Notice}). {@link #publish} never blocks its caller on the network and
 * never fails it: a run's outcome is already written when it is published, and publishing must not hold up the next
 * run. What cannot be published is logged, never dropped silently.
 */
public interface RunNotices {
    /** Publishes nothing: no bus configured (the local runner's default, and tests'). */
    RunNotices NONE = new RunNotices() {
        @Override
        public void publish(Notice notice) {}

        @Override
        public boolean flush(Duration within) {
            return true;
        }
    };

    /** Queues {@code notice} for publishing. */
    void publish(Notice notice);

    /**
     * Waits until what was queued before the call is published (or given up on, logged), at most {@code within}: a
     * Lambda calls it before its invocation ends, since a frozen sandbox publishes nothing. Whether it all went out.
     */
    boolean flush(Duration within) throws InterruptedException;

    /** Flushes, at most {@code within}, then stops. */
    default void close(Duration within) throws InterruptedException {
        flush(within);
    }
}
