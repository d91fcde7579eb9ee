package dev.punctual.core.firing;

import java.time.Duration;

/**
 * How a job's runs fire, beyond its schedule: {@code jitter} (null: none), {@code catchUp} for missed occurrences,
 * {@code overlap} with runs still running, {@code maxRunAge}: a run not started this long after it became due
 * (waiting for retries, for an overlapping run, or for a message) is DEAD instead, and {@code maxConcurrency}: under
 * {@code overlap: forbid|queue}, how many of its runs may be RUNNING at once (1 under {@code allow}, where it means
 * nothing: every run starts), {@code priority}: the lane its runs are sent to (null: {@code normal}).
 */
public record FiringPolicy(
        Jitter jitter, CatchUp catchUp, Overlap overlap, Duration maxRunAge, int maxConcurrency, Priority priority) {
    public static final Duration DEFAULT_MAX_RUN_AGE = Duration.ofDays(1);
    public static final Duration MIN_MAX_RUN_AGE = Duration.ofMinutes(1);
    public static final Duration MAX_MAX_RUN_AGE = Duration.ofDays(14);
    /**
     * The most runs of one job that may run at once under a limit: each is a slot of the job's item that a claim
     * takes in its transaction, and a claim that finds them all taken reads the runs in them.
     */
    public static final int MAX_CONCURRENCY_LIMIT = 25;

    public static final FiringPolicy DEFAULT =
            new FiringPolicy(null, CatchUp.DEFAULT, Overlap.ALLOW, DEFAULT_MAX_RUN_AGE);

    public FiringPolicy {
        catchUp = catchUp == null ? CatchUp.DEFAULT : catchUp;
        overlap = overlap == null ? Overlap.ALLOW : overlap;
        maxRunAge = maxRunAge == null ? DEFAULT_MAX_RUN_AGE : maxRunAge;
        maxConcurrency = overlap == Overlap.ALLOW ? 1 : Math.clamp(maxConcurrency, 1, MAX_CONCURRENCY_LIMIT);
        priority = priority == null ? Priority.NORMAL : priority;
    }

    /** In the {@code normal} lane. */
    public FiringPolicy(Jitter jitter, CatchUp catchUp, Overlap overlap, Duration maxRunAge, int maxConcurrency) {
        this(jitter, catchUp, overlap, maxRunAge, maxConcurrency, Priority.NORMAL);
    }

    /** One run at a time under {@code overlap: forbid|queue}. */
    public FiringPolicy(Jitter jitter, CatchUp catchUp, Overlap overlap, Duration maxRunAge) {
        this(jitter, catchUp, overlap, maxRunAge, 1);
    }
}
