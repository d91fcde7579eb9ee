package dev.punctual.core.schedule;

import dev.punctual.core.time.Instants;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Set;

/** Validates a {@code cron} spec. */
final class CronSpecParser {
    static final String DEFAULT_TIMEZONE = "UTC";
    /** Far more than any sensible expression needs; bounds the work of parsing what a client sends. */
    static final int MAX_EXPRESSION_LENGTH = 256;

    private static final Set<String> FIELDS = Set.of("expression", "timezone", "start", "end", "dstGap", "dstOverlap");

    private CronSpecParser() {}

    static CronSchedule parse(SpecReader r, ScheduleSpec spec, Instant now, Duration minInterval) {
        r.onlyAllowed(spec, FIELDS);
        CronExpression cron = expression(r, spec.expression(), minInterval);
        ZoneId zone = r.zone(r.path("timezone"), spec.timezone() == null ? DEFAULT_TIMEZONE : spec.timezone());
        DstPolicy policy = r.policy(spec);
        Instant start = r.instant("start", spec.start(), false);
        Instant end = r.instant("end", spec.end(), false);
        if (start != null && end != null && !end.isAfter(start)) {
            r.error(r.path("end"), "must be after start");
        } else if (end != null && !end.isAfter(now)) {
            r.error(r.path("end"), "is in the past");
        }
        if (!r.errors.isEmpty()) {
            return null;
        }
        return new CronSchedule(
                cron,
                zone,
                policy,
                start == null ? null : Instants.millis(start),
                end == null ? null : Instants.millis(end));
    }

    private static CronExpression expression(SpecReader r, String text, Duration minInterval) {
        String path = r.path("expression");
        if (text == null || text.isBlank()) {
            r.error(path, "is required (a cron expression such as \"*/5 * * * *\")");
            return null;
        }
        if (text.length() > MAX_EXPRESSION_LENGTH) {
            r.error(path, "must be at most " + MAX_EXPRESSION_LENGTH + " characters");
            return null;
        }
        CronExpression cron;
        try {
            cron = CronExpression.parse(text);
        } catch (IllegalArgumentException e) {
            r.error(path, "is not a valid cron expression: " + e.getMessage());
            return null;
        }
        // The seconds field is the only way a cron can fire more often than once a minute; hold it to the same
        // floor as intervals.
        if (cron.shortestSecondsGap() < minInterval.toSeconds()) {
            r.error(
                    path,
                    "fires " + cron.shortestSecondsGap() + " s apart; matching seconds must be at least "
                            + minInterval.toSeconds() + " s apart (counting around the minute)");
            return null;
        }
        return cron;
    }
}
