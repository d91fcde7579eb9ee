package dev.punctual.core.schedule;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.time.Instants;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;

/**
 * Validates a {@link ScheduleSpec} into a {@link Schedule}, naming the offending field on error.
 *
 * <p>{@code now} is the creation time. Rules that depend on it only ever reject instants before it ("once" too far
 * in the past, an end in the past, no date left), so re-parsing a stored spec with its job's {@code createdAt} (as
 * the dispatcher does for every next occurrence) passes them again however late that happens; and every default
 * that now supplies (an interval's start) is written into the stored spec, so a re-parse never re-derives it.
 */
public final class Schedules {
    /** A "once" time further in the past than this is a mistake, not clock skew. */
    public static final Duration ONCE_PAST_TOLERANCE = Duration.ofMinutes(5);
    /** The longest interval: ten years (beyond it, millisecond arithmetic on instants would overflow). */
    public static final Duration MAX_INTERVAL = Duration.ofDays(3650);
    /** The most entries of a dates schedule. */
    public static final int MAX_DATES = DatesSpecParser.MAX_DATES;

    private static final String TYPES = "(one of: now, once, interval, cron, dates)";

    private final Duration minInterval;

    public Schedules(Duration minInterval) {
        this.minInterval = minInterval;
    }

    /**
     * Validates a schedule as written and parses it; its problems are thrown together, each naming its field.
     *
     * @param now   the creation time: defaults an interval's start, and bounds how far in the past "once" may be
     * @param field the JSON path of the schedule, used in error field names
     */
    public Schedule parse(ScheduleSpec spec, Instant now, String field) {
        if (spec == null) {
            throw new ValidationException(List.of(new FieldError(field, "is required")));
        }
        SpecReader r = new SpecReader(field);
        String type = spec.type();
        Schedule result = null;
        if (type == null) {
            r.error(r.path("type"), "is required " + TYPES);
        } else {
            result = switch (type) {
                case "now" -> {
                    r.onlyAllowed(spec, Set.of());
                    yield new Schedule.Now();
                }
                case "once" -> once(r, spec, now);
                case "interval" -> interval(r, spec, now);
                case "cron" -> CronSpecParser.parse(r, spec, now, minInterval);
                case "dates" -> DatesSpecParser.parse(r, spec, now);
                default -> {
                    // Echoed back only when short: the answer should not grow with whatever was sent.
                    r.error(
                            r.path("type"),
                            "unknown schedule type " + (type.length() <= 32 ? "'" + type + "' " : "") + TYPES);
                    yield null;
                }
            };
        }
        if (!r.errors.isEmpty()) {
            throw new ValidationException(r.errors);
        }
        return result;
    }

    private static Schedule once(SpecReader r, ScheduleSpec spec, Instant now) {
        r.onlyAllowed(spec, Set.of("at"));
        Instant at = r.instant("at", spec.at(), true);
        if (at != null && at.isBefore(now.minus(ONCE_PAST_TOLERANCE))) {
            r.error(r.path("at"), "is more than " + ONCE_PAST_TOLERANCE.toMinutes() + " minutes in the past");
            return null;
        }
        return at == null ? null : new Schedule.Once(Instants.millis(at));
    }

    private Schedule interval(SpecReader r, ScheduleSpec spec, Instant now) {
        r.onlyAllowed(spec, Set.of("every", "start", "end"));
        Duration every = duration(r, spec.every());
        Instant start = r.instant("start", spec.start(), false);
        Instant end = r.instant("end", spec.end(), false);
        if (start == null && spec.start() == null) {
            start = now.truncatedTo(ChronoUnit.SECONDS);
        }
        if (start != null && end != null && !end.isAfter(start)) {
            r.error(r.path("end"), "must be after start");
        } else if (end != null && !end.isAfter(now)) {
            r.error(r.path("end"), "is in the past");
        }
        if (every == null || start == null || !r.errors.isEmpty()) {
            return null;
        }
        return new Schedule.Interval(every, Instants.millis(start), end == null ? null : Instants.millis(end));
    }

    private Duration duration(SpecReader r, String text) {
        String field = r.path("every");
        if (text == null) {
            r.error(field, "is required (an ISO-8601 duration such as PT30S)");
            return null;
        }
        Duration d;
        try {
            d = Duration.parse(text);
        } catch (DateTimeParseException e) {
            r.error(field, "is not an ISO-8601 duration (e.g. PT30S, PT5M, P1D)");
            return null;
        }
        if (d.compareTo(MAX_INTERVAL) > 0) {
            r.error(field, "must be at most " + MAX_INTERVAL.toDays() + " days");
            return null;
        }
        if (d.compareTo(minInterval) < 0) {
            r.error(field, "must be at least " + minInterval.toSeconds() + " seconds");
            return null;
        }
        if (d.toMillis() % 1000 != 0) {
            r.error(field, "must be a whole number of seconds");
            return null;
        }
        return d;
    }
}
