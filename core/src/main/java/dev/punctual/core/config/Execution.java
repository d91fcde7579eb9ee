package dev.punctual.core.config;

import java.time.Duration;

/**
 * How an executor holds and runs what it claims: a run it has started is its own for a {@code lease}, renewed every
 * {@code heartbeat}, so another executor takes it only once the holder has stopped renewing.
 *
 * @param lease how long a claim holds a run without renewal; also the run queues' visibility timeout
 * @param heartbeat how often a running run's lease and message visibility are extended; shorter than the lease, or a
 *     live run's lease would lapse between renewals
 * @param killGrace how long a binary has between SIGTERM and SIGKILL when its run is stopped
 * @param shutdownGrace on the executor's SIGTERM, how long running binaries may finish before they are killed and
 *     released for retry
 * @param concurrency runs one executor runs at once
 */
public record Execution(
        Duration lease, Duration heartbeat, Duration killGrace, Duration shutdownGrace, int concurrency) {

    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(20);
    public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);
    public static final int DEFAULT_CONCURRENCY = 4;

    public Execution {
        if (heartbeat.compareTo(lease) >= 0) {
            throw new IllegalArgumentException("heartbeat must be shorter than the lease");
        }
    }
}
