package dev.punctual.core.time;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/** Fixed-width renderings of instants (millisecond precision, UTC), which sort lexically in time order. */
public final class Instants {
    private static final DateTimeFormatter FIXED =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter COMPACT =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Instants() {
    }

    public static String fixed(Instant t) {
        return FIXED.format(t);
    }

    public static String compact(Instant t) {
        return COMPACT.format(t);
    }

    public static Instant millis(Instant t) {
        return t.truncatedTo(ChronoUnit.MILLIS);
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
