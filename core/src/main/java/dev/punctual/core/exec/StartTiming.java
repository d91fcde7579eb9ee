package dev.punctual.core.exec;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the time between a run's due instant and its binary's start goes, step by step on the executor: each mark is
 * the time since the due instant when a step was done (negative: before it). Logged at DEBUG by
 * {@code dev.punctual.timing}, one line per started attempt (the benchmark turns it on and reports the medians).
 */
final class StartTiming {
    /** The logger's name: lower case, so that {@code QUARKUS_LOG_CATEGORY__DEV_PUNCTUAL_TIMING__LEVEL=DEBUG} names it. */
    static final String LOGGER = "dev.punctual.timing";

    private static final System.Logger LOG = System.getLogger(LOGGER);

    private final Clock clock;
    private final Instant due;
    private final List<String> marks = new ArrayList<>();

    private StartTiming(Clock clock, Instant due) {
        this.clock = clock;
        this.due = due;
    }

    /** Timing for a message of a run due at {@code due}, received just now. */
    static StartTiming received(Clock clock, Instant due) {
        StartTiming t = new StartTiming(clock, due);
        return LOG.isLoggable(Level.DEBUG) ? t.mark("received") : t;
    }

    StartTiming mark(String step) {
        if (LOG.isLoggable(Level.DEBUG)) {
            marks.add(step + " " + Duration.between(due, clock.instant()).toNanos() / 100_000 / 10.0 + " ms");
        }
        return this;
    }

    /** The line for the run {@code name}, once its binary has started. */
    void log(String name) {
        if (LOG.isLoggable(Level.DEBUG)) {
            LOG.log(Level.DEBUG, "start timing of " + name + " (from its due instant): " + String.join(", ", marks));
        }
    }
}
