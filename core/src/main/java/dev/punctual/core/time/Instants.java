package dev.punctual.core.time;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * Fixed-width renderings of instants (millisecond precision, UTC), which sort lexically in time order, and the range
 * of instants the scheduler accepts.
 */
public final class Instants {
    /**
     * The earliest instant a request may name. Nothing is scheduled before the epoch, and the bound keeps millisecond
     * arithmetic between two accepted instants far from overflowing.
     */
    public static final Instant MIN_SUPPORTED = Instant.parse("1970-01-01T00:00:00Z");
    /**
     * The latest instant a request may name, and the latest occurrence a schedule yields: run ids and index keys
     * render instants with four-digit years, which sort in time order only up to here.
     */
    public static final Instant MAX_SUPPORTED = Instant.parse("9999-12-31T23:59:59.999Z");
    /** What an instant outside the supported range is told, after its field name. */
    public static final String OUT_OF_RANGE = "must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z";

    private static final DateTimeFormatter FIXED =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter COMPACT =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Instants() {}

    public static String fixed(Instant t) {
        return FIXED.format(t);
    }

    public static String compact(Instant t) {
        return COMPACT.format(t);
    }

    public static Instant millis(Instant t) {
        return t.truncatedTo(ChronoUnit.MILLIS);
    }

    public static boolean supported(Instant t) {
        return !t.isBefore(MIN_SUPPORTED) && !t.isAfter(MAX_SUPPORTED);
    }

    /** Parses an ISO-8601 instant with an offset ("Z" or "+02:00"); null when it is not one. */
    public static Instant parseOrNull(String text) {
        if (text == null) {
            return null;
        }
        try {
            return java.time.OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
