package dev.punctual.core.schedule;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.time.Instants;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Reads the fields of one {@link ScheduleSpec}, collecting an error per bad field under the caller's path. */
final class SpecReader {
    /** The longest IANA zone id is about 30 characters; anything much longer is not one, and is not echoed back. */
    static final int MAX_ZONE_LENGTH = 64;

    final String field;
    final List<FieldError> errors = new ArrayList<>();

    SpecReader(String field) {
        this.field = field;
    }

    String path(String name) {
        return field + "." + name;
    }

    void error(String path, String message) {
        errors.add(new FieldError(path, message));
    }

    /** Every field set in {@code spec} other than {@code type} and {@code allowed} is an error. */
    void onlyAllowed(ScheduleSpec spec, Set<String> allowed) {
        Map<String, Object> present = new LinkedHashMap<>();
        present.put("at", spec.at());
        present.put("every", spec.every());
        present.put("start", spec.start());
        present.put("end", spec.end());
        present.put("expression", spec.expression());
        present.put("timezone", spec.timezone());
        present.put("dstGap", spec.dstGap());
        present.put("dstOverlap", spec.dstOverlap());
        present.put("dates", spec.dates());
        present.forEach((name, value) -> {
            if (value != null && !allowed.contains(name)) {
                error(path(name), "is not allowed for this schedule type");
            }
        });
    }

    Instant instant(String name, String text, boolean required) {
        if (text == null) {
            if (required) {
                error(path(name), "is required (an ISO-8601 instant such as 2030-01-01T09:00:00Z)");
            }
            return null;
        }
        Instant t = Instants.parseOrNull(text);
        if (t == null) {
            error(path(name), "is not an ISO-8601 instant with an offset (e.g. 2030-01-01T09:00:00Z)");
        } else if (!Instants.supported(t)) {
            error(path(name), Instants.OUT_OF_RANGE);
            return null;
        }
        return t;
    }

    /** An IANA region id ("Europe/London", "UTC"); not an offset or an abbreviation, which have no DST rules. */
    ZoneId zone(String path, String text) {
        if (text != null && text.length() > MAX_ZONE_LENGTH) {
            error(
                    path,
                    "must be at most " + MAX_ZONE_LENGTH + " characters (an IANA time zone id such as "
                            + "Europe/London)");
            return null;
        }
        if (text == null || !ZoneId.getAvailableZoneIds().contains(text)) {
            error(
                    path,
                    text == null
                            ? "is required (an IANA time zone id such as Europe/London)"
                            : "is not an IANA time zone id (e.g. Europe/London, America/New_York, UTC)");
            return null;
        }
        return ZoneId.of(text);
    }

    DstPolicy policy(ScheduleSpec spec) {
        DstPolicy.Gap gap = choice(path("dstGap"), spec.dstGap(), DstPolicy.Gap.values(), DstPolicy.DEFAULT.gap());
        DstPolicy.Overlap overlap =
                choice(path("dstOverlap"), spec.dstOverlap(), DstPolicy.Overlap.values(), DstPolicy.DEFAULT.overlap());
        return gap == null || overlap == null ? null : new DstPolicy(gap, overlap);
    }

    private <E extends Enum<E>> E choice(String path, String text, E[] values, E dflt) {
        if (text == null) {
            return dflt;
        }
        List<String> names = new ArrayList<>();
        for (E e : values) {
            String name = e.name().toLowerCase(Locale.ROOT);
            if (name.equals(text)) {
                return e;
            }
            names.add(name);
        }
        error(path, "must be one of: " + String.join(", ", names));
        return null;
    }
}
