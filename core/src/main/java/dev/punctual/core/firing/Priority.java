package dev.punctual.core.firing;

import java.time.Duration;
import java.util.Locale;

/**
 * A run's lane: each is a queue of its own with its own dead-letter queue ({@code <prefix>-runs-high},
 * {@code <prefix>-runs} for {@code normal}, {@code <prefix>-runs-low}). An executor takes from every lane at once and,
 * when they compete for its capacity, grants it by {@link #weight} (a smooth weighted round robin over the lanes
 * that are waiting), so a lower lane gets its share however busy the higher ones are: {@code low} at least one grant
 * in thirteen.
 */
public enum Priority {
    HIGH(8, "-high"),
    NORMAL(4, ""),
    LOW(1, "-low");

    /** What a field naming a lane must be. */
    public static final String MUST_BE = "must be one of high, normal, low";

    /** This lane's share of an executor's grants while other lanes also wait. */
    public final int weight;

    /** What this lane's queue names add to the normal lane's ({@code <prefix>-runs}). */
    public final String queueSuffix;

    Priority(int weight, String queueSuffix) {
        this.weight = weight;
        this.queueSuffix = queueSuffix;
    }

    /** The name the API and the command use. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The lane named {@code text} (high, normal, low; any case), or null for any other text. */
    public static Priority parse(String text) {
        if (text == null) {
            return null;
        }
        for (Priority p : values()) {
            if (p.label().equalsIgnoreCase(text)) {
                return p;
            }
        }
        return null;
    }

    /** One lane up ({@code low} → {@code normal} → {@code high}); {@code high} stays. */
    public Priority up() {
        return this == LOW ? NORMAL : HIGH;
    }

    /**
     * The lane of a run that has waited {@code waited} since it became due, sent first into this lane: one lane up
     * for every whole {@code step} (aging; {@code step} is the sweeper's {@code requeue-after}, the wait after which
     * it sends a run that has not started again).
     */
    public Priority aged(Duration waited, Duration step) {
        Priority p = this;
        if (step.isZero() || step.isNegative()) {
            return p;
        }
        for (long steps = waited.dividedBy(step); steps > 0 && p != HIGH; steps--) {
            p = p.up();
        }
        return p;
    }
}
