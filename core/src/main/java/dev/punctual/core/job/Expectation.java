package dev.punctual.core.job;

import dev.punctual.core.error.ValidationException;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.time.Window;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What a job is expected to achieve, watched apart from its runs (a dead-man's switch): a success at least every
 * {@code every}, or one before each deadline of {@code by} (a schedule whose occurrences are deadlines) since the
 * deadline before it. Exactly one is set. A job that does not meet it is reported overdue, also when no run of it
 * happened at all (the sweeper was behind, the runs were skipped, the schedule was wrong): the watch is its own
 * item, not a consequence of a run ({@code run.WatchRepository}).
 */
public record Expectation(Duration every, ScheduleSpec by) {
    /** The shortest {@code every}: the sweeper, which checks watches, runs once a minute. */
    public static final Duration MIN_EVERY = Duration.ofMinutes(1);

    public static final Duration MAX_EVERY = Duration.ofDays(366);

    /**
     * The first window of a watch armed at {@code now} (the expectation just set, or its job just resumed): from now
     * to {@code every} later, or to {@code by}'s first deadline from now. Empty: {@code by} has no deadline left.
     * {@code definedAt}: when the job's definition was validated (its {@code updatedAt}), which {@code by} is parsed
     * against as it was then.
     */
    public Optional<Window> first(Instant now, Schedules schedules, Instant definedAt) {
        if (every != null) {
            return Optional.of(new Window(now, now.plus(every)));
        }
        return deadlines(schedules, definedAt).first(now).map(d -> new Window(now, d));
    }

    /**
     * The window after {@code checked} was checked at {@code now}. For {@code every}: from {@code success} (the last
     * success found in it, if any) to {@code every} after that (now at the earliest); with none, the same start, and
     * a deadline {@code every} after now (an overdue job is reported once per period). For {@code by}: from the checked
     * deadline to the next; deadlines that passed meanwhile (a sweep outage) are stepped over, the window starting
     * at the last of them. Empty: no deadline left.
     */
    public Optional<Window> next(
            Window checked, Optional<Instant> success, Instant now, Schedules schedules, Instant definedAt) {
        if (every != null) {
            // A check that came late (a sweep outage) may find a success whose period is over by now too: due now,
            // not in the past, where the sweep's watermark has already gone by and would never find it.
            return Optional.of(success.map(s -> new Window(s, latest(s.plus(every), now)))
                    .orElse(new Window(checked.since(), now.plus(every))));
        }
        Schedule s = deadlines(schedules, definedAt);
        Instant since = checked.deadline();
        Optional<Instant> d = s.next(since);
        for (int i = 0; i < MAX_STEPS && d.isPresent() && !d.get().isAfter(now); i++) {
            since = d.get();
            d = s.next(since);
        }
        if (d.isPresent() && !d.get().isAfter(now)) {
            // Deadlines more frequent than the steps can pass: start again from now.
            since = now;
            d = s.first(now);
        }
        Instant from = since;
        return d.map(deadline -> new Window(from, deadline));
    }

    private static Instant latest(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    /** How many passed deadlines {@link #next} steps over one by one. */
    static final int MAX_STEPS = 10_000;

    private Schedule deadlines(Schedules schedules, Instant definedAt) {
        try {
            return schedules.parse(by, definedAt, "expect.by");
        } catch (ValidationException e) {
            // Validated when it was set; a deployment's rules that changed since (a longer minimum interval) do not
            // silence it.
            throw new IllegalStateException("the stored expectation's deadlines no longer parse: " + e.getMessage(), e);
        }
    }
}
