package dev.punctual.core.firing;

import java.time.Duration;

/**
 * How a job's runs fire, beyond its schedule: {@code jitter} (null: none), {@code catchUp} for missed occurrences,
 * {@code overlap} with a run still running, and {@code maxRunAge}: a run not started this long after it became due
 * (waiting for retries, for an overlapping run, or for a message) is DEAD instead.
 */
public record FiringPolicy(Jitter jitter, CatchUp catchUp, Overlap overlap, Duration maxRunAge) {
    public static final Duration DEFAULT_MAX_RUN_AGE = Duration.ofDays(1);
    public static final Duration MIN_MAX_RUN_AGE = Duration.ofMinutes(1);
    public static final Duration MAX_MAX_RUN_AGE = Duration.ofDays(14);
    public static final FiringPolicy DEFAULT =
            new FiringPolicy(null, CatchUp.DEFAULT, Overlap.ALLOW, DEFAULT_MAX_RUN_AGE);

    public FiringPolicy {
        catchUp = catchUp == null ? CatchUp.DEFAULT : catchUp;
        overlap = overlap == null ? Overlap.ALLOW : overlap;
        maxRunAge = maxRunAge == null ? DEFAULT_MAX_RUN_AGE : maxRunAge;
    }
}
