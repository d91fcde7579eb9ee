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
}
