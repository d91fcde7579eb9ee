package dev.punctual.core.firing;

import java.time.Duration;
import java.util.Locale;

/**
 * Which missed occurrences of a recurring job run late: those that fell while the job was paused (applied by
 * resume), or while the scheduler could not dispatch them (applied by the dispatcher when it finds the job's
 * pending run late). Occurrences older than {@code maxAge} never run; {@code all} runs at most {@code maxRuns}, the
 * most recent. The first occurrence left out is recorded as a SKIPPED run saying how many were skipped, so nothing
 * is dropped silently.
 */
public record CatchUp(Mode mode, Duration maxAge, int maxRuns) {
    public static final Duration DEFAULT_MAX_AGE = Duration.ofDays(1);
    public static final Duration MAX_AGE_LIMIT = Duration.ofDays(30);
    public static final int DEFAULT_MAX_RUNS = 100;
    public static final int MAX_RUNS_LIMIT = 1000;
    /** A pending run is missed when it is dispatched this much after its due time. */
    public static final Duration MISSED_AFTER = Duration.ofMinutes(1);

    public static final CatchUp DEFAULT = new CatchUp(Mode.ALL, DEFAULT_MAX_AGE, DEFAULT_MAX_RUNS);

    public enum Mode {
        /** None of them: the next future occurrence is the next run. */
        SKIP,
        /** One run, for the most recent of them. */
        LATEST,
        /** Each of them, within maxAge and maxRuns (the default). */
        ALL;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public CatchUp withMode(Mode m) {
        return new CatchUp(m, maxAge, maxRuns);
    }
}
