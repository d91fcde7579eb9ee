package dev.punctual.core.tenant;

import dev.punctual.core.limits.Quotas;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.schedule.Schedules;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Optional;

/**
 * A schedule's busiest minute: the most occurrences in any 60-second window, which is what a job adds to its
 * tenant's {@link Quotas#runsPerMinute()}. {@link #of} depends on the stored schedule only (not on the time it is
 * asked), so what a job adds when it is written is exactly what it gives back when it is replaced or deleted.
 */
public final class SchedulePeak {
    static final Duration WINDOW = Duration.ofMinutes(1);
    /** Enough occurrences to see every pattern repeat (a per-5-seconds cron repeats each minute). */
    static final int SAMPLE = 2_000;

    private SchedulePeak() {}

    /** A fixed point before every schedule's occurrences (instants are 1970–9999, and start/end are dropped). */
    private static final Instant REFERENCE = Instant.parse("2000-01-01T00:00:00Z");

    /** The busiest minute of a stored (valid) schedule, whenever it is asked. */
    public static int of(ScheduleSpec spec, Schedules schedules) {
        // Bounds only ever lower the count; without them the spec reads the same at any time.
        ScheduleSpec unbounded = new ScheduleSpec(
                spec.type(),
                spec.at(),
                spec.every(),
                null,
                null,
                spec.expression(),
                spec.timezone(),
                spec.dstGap(),
                spec.dstOverlap(),
                spec.dates());
        return perMinute(schedules.parse(unbounded, REFERENCE, "schedule"), REFERENCE);
    }

    public static int perMinute(Schedule schedule, Instant from) {
        ArrayDeque<Instant> window = new ArrayDeque<>();
        int peak = 0;
        Optional<Instant> t = schedule.first(from);
        for (int i = 0; i < SAMPLE && t.isPresent(); i++) {
            Instant now = t.get();
            window.addLast(now);
            while (!window.peekFirst().isAfter(now.minus(WINDOW))) {
                window.removeFirst();
            }
            peak = Math.max(peak, window.size());
            t = schedule.next(now);
        }
        return Math.max(peak, 1);
    }
}
