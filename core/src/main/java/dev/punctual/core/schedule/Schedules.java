package dev.punctual.core.schedule;

import dev.punctual.core.service.FieldError;
import dev.punctual.core.service.ValidationException;
import dev.punctual.core.time.Instants;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** Validates a {@link ScheduleSpec} into a {@link Schedule}, naming the offending field on error. */
public final class Schedules {
    /** A "once" time further in the past than this is a mistake, not clock skew. */
    public static final Duration ONCE_PAST_TOLERANCE = Duration.ofMinutes(5);
    /** The longest interval: ten years (beyond it, millisecond arithmetic on instants would overflow). */
    public static final Duration MAX_INTERVAL = Duration.ofDays(3650);

    private final Duration minInterval;

    public Schedules(Duration minInterval) {
        this.minInterval = minInterval;
    }

    /**
     * @param now   the creation time: defaults an interval's start, and bounds how far in the past "once" may be
     * @param field the JSON path of the schedule, used in error field names
     */
    public Schedule parse(ScheduleSpec spec, Instant now, String field) {
        List<FieldError> errors = new ArrayList<>();
        if (spec == null) {
            throw new ValidationException(List.of(new FieldError(field, "is required")));
        }
        String type = spec.type();
        Schedule result = null;
        if (type == null) {
            errors.add(new FieldError(field + ".type", "is required (one of: now, once, interval)"));
        } else {
            switch (type) {
                case "now" -> {
                    rejectPresent(errors, field, "at", spec.at());
                    rejectPresent(errors, field, "every", spec.every());
                    rejectPresent(errors, field, "start", spec.start());
                    rejectPresent(errors, field, "end", spec.end());
                    result = new Schedule.Now();
                }
                case "once" -> {
                    rejectPresent(errors, field, "every", spec.every());
                    rejectPresent(errors, field, "start", spec.start());
                    rejectPresent(errors, field, "end", spec.end());
                    Instant at = instant(errors, field + ".at", spec.at(), true);
                    if (at != null && at.isBefore(now.minus(ONCE_PAST_TOLERANCE))) {
                        errors.add(new FieldError(field + ".at", "is more than " + ONCE_PAST_TOLERANCE.toMinutes()
                                + " minutes in the past"));
                    } else if (at != null) {
                        result = new Schedule.Once(Instants.millis(at));
                    }
                }
                case "interval" -> {
                    rejectPresent(errors, field, "at", spec.at());
                    Duration every = duration(errors, field + ".every", spec.every());
                    Instant start = instant(errors, field + ".start", spec.start(), false);
                    Instant end = instant(errors, field + ".end", spec.end(), false);
                    if (start == null && spec.start() == null) {
                        start = now.truncatedTo(ChronoUnit.SECONDS);
                    }
                    if (start != null && end != null && !end.isAfter(start)) {
                        errors.add(new FieldError(field + ".end", "must be after start"));
                    } else if (end != null && !end.isAfter(now)) {
                        errors.add(new FieldError(field + ".end", "is in the past"));
                    }
                    if (every != null && start != null && errors.isEmpty()) {
                        result = new Schedule.Interval(every, Instants.millis(start),
                                end == null ? null : Instants.millis(end));
                    }
                }
                default -> errors.add(new FieldError(field + ".type",
                        "unknown schedule type '" + type + "' (one of: now, once, interval)"));
            }
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(errors);
        }
        return result;
    }

    private Duration duration(List<FieldError> errors, String field, String text) {
        if (text == null) {
            errors.add(new FieldError(field, "is required (an ISO-8601 duration such as PT30S)"));
            return null;
        }
        Duration d;
        try {
            d = Duration.parse(text);
        } catch (DateTimeParseException e) {
            errors.add(new FieldError(field, "is not an ISO-8601 duration (e.g. PT30S, PT5M, P1D)"));
            return null;
        }
        if (d.compareTo(MAX_INTERVAL) > 0) {
            errors.add(new FieldError(field, "must be at most " + MAX_INTERVAL.toDays() + " days"));
            return null;
        }
        if (d.compareTo(minInterval) < 0) {
            errors.add(new FieldError(field, "must be at least " + minInterval.toSeconds() + " seconds"));
            return null;
        }
        if (d.toMillis() % 1000 != 0) {
            errors.add(new FieldError(field, "must be a whole number of seconds"));
            return null;
        }
        return d;
    }

    private static Instant instant(List<FieldError> errors, String field, String text, boolean required) {
        if (text == null) {
            if (required) {
                errors.add(new FieldError(field, "is required (an ISO-8601 instant such as 2030-01-01T09:00:00Z)"));
            }
            return null;
        }
        Instant t = Instants.parseOrNull(text);
        if (t == null) {
            errors.add(new FieldError(field, "is not an ISO-8601 instant with an offset (e.g. 2030-01-01T09:00:00Z)"));
        }
        return t;
    }

    private static void rejectPresent(List<FieldError> errors, String field, String name, String value) {
        if (value != null) {
            errors.add(new FieldError(field + "." + name, "is not allowed for this schedule type"));
        }
    }
}
