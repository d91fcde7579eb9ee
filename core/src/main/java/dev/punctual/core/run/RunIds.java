package dev.punctual.core.run;

import dev.punctual.core.time.Instants;
import java.time.Instant;

/**
 * A scheduled occurrence's run id is its due instant, so it sorts in time order within the job's partition and two
 * writers materializing the same occurrence collide on the same key: the loser's conditional put fails.
 */
public final class RunIds {
    private RunIds() {}

    public static String forOccurrence(Instant scheduledAt) {
        return Instants.compact(scheduledAt);
    }

    /**
     * The lower bound of a {@code BETWEEN} on run ids that takes in the runs due from {@code from} on (null: all).
     * Never a run id itself: an extra run's id is its instant's and "-t…" after it, and "~" sorts after "-", so
     * "&lt;from − 1 ms&gt;~" sorts after every id of a run due before {@code from} and before every other. A bound
     * equal to an id is one a page can stop on, and DynamoDB Local refuses a start key equal to a {@code BETWEEN}'s
     * lower bound (the inclusive bound taken as exclusive; found by RunSearchTest's pages).
     */
    static String lowerBound(Instant from) {
        return from == null ? "0" : forOccurrence(from.minusMillis(1)) + "~";
    }

    /** The upper bound of a {@code BETWEEN} on run ids that takes in the runs due up to {@code to} (null: all). */
    static String upperBound(Instant to) {
        return to == null ? "~" : forOccurrence(to) + "~";
    }
}
