package dev.punctual.core.tenant;

import dev.punctual.core.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Optional;

/**
 * A schedule's busiest minute: the most occurrences in any 60-second window, which is what a job adds to its
 * tenant's {@link Quotas#runsPerMinute()}. A pure function of the schedule and the instant it is read from (the
 * job's creation), so the amount added at creation is the amount taken back at deletion.
 */
public final class SchedulePeak {
    static final Duration WINDOW = Duration.ofMinutes(1);
    /** Enough occurrences to see every pattern repeat (a per-5-seconds cron repeats each minute). */
    static final int SAMPLE = 2_000;

    private SchedulePeak() {
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
