package dev.punctual.core.schedule;

import dev.punctual.core.time.Instants;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;

/**
 * Occurrences where {@code cron} matches the wall clock of {@code zone}, resolved by {@code policy} at DST
 * transitions, from {@code start} (inclusive, null: unbounded) up to and including {@code end} (null: none).
 */
public record CronSchedule(CronExpression cron, ZoneId zone, DstPolicy policy, Instant start, Instant end)
        implements Schedule.Local {

    private CronTimeline timeline() {
        return new CronTimeline(cron, zone, policy);
    }

    @Override
    public Optional<Occurrence> firstOccurrence(Instant now) {
        return nextOccurrence(now.minusNanos(1));
    }

    @Override
    public Optional<Occurrence> nextOccurrence(Instant previous) {
        Instant after = start != null && previous.isBefore(start) ? start.minusNanos(1) : previous;
        return timeline()
                .after(after)
                .filter(o -> (end == null || !o.at().isAfter(end)) && !o.at().isAfter(Instants.MAX_SUPPORTED));
    }

    @Override
    public ScheduleSpec spec() {
        return ScheduleSpec.cron(cron.toString(), zone.getId(), str(start), str(end), policy);
    }

    static String str(Instant t) {
        return t == null ? null : t.toString();
    }
}
