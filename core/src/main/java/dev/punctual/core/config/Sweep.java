package dev.punctual.core.config;

import java.time.Duration;

/**
 * How the sweeper finds due runs and sends them on: every {@code period} it queues the runs due before now plus
 * {@code lookahead}, re-querying the buckets newer than now minus {@code settle}.
 *
 * @param period how often a sweep starts
 * @param lookahead how far ahead a sweep queues runs; longer than the period, or a run due just after a sweep's
 *     horizon would be queued only after it is due
 * @param settle how far the watermark trails now, so a bucket is re-queried until index lag cannot hide a run in it
 * @param requeueAfter how long a run may go unattended past when it should have come back before a sweep sends it
 *     again
 * @param maxBacklog the oldest bucket a sweep looks at after downtime; older due times are not caught up
 * @param dispatchConcurrency jobs a dispatch (a sweep, or the API's sends at creation) moves on at once
 */
public record Sweep(
        Duration period,
        Duration lookahead,
        Duration settle,
        Duration requeueAfter,
        Duration maxBacklog,
        int dispatchConcurrency) {

    public static final Duration DEFAULT_PERIOD = Duration.ofMinutes(1);
    /** Sweep period plus a minute of margin: a run is queued at least this long before it is due. */
    public static final Duration DEFAULT_LOOKAHEAD = Duration.ofMinutes(2);

    public static final Duration DEFAULT_SETTLE = Duration.ofMinutes(1);
    /**
     * A QUEUED or FAILED run whose message has not brought it back this long after it should have (lost by a
     * crash or an expired message), or a RUNNING run this long past its lease, is sent again by the sweeper.
     */
    public static final Duration DEFAULT_REQUEUE_AFTER = Duration.ofMinutes(10);

    public static final Duration DEFAULT_MAX_BACKLOG = Duration.ofDays(1);
    /** Each job of a dispatch is moved on by a thread of its own. */
    public static final int DEFAULT_DISPATCH_CONCURRENCY = 64;

    public Sweep {
        if (dispatchConcurrency < 1) {
            throw new IllegalArgumentException("dispatch concurrency must be >= 1");
        }
        if (lookahead.compareTo(period) <= 0) {
            throw new IllegalArgumentException("lookahead must exceed the sweep period, or runs would be found late");
        }
    }
}
