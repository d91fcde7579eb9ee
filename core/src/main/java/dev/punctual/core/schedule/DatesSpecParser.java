package dev.punctual.core.schedule;

import dev.punctual.core.time.Instants;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Validates a {@code dates} spec: each entry resolved to its instants, duplicates named by index. */
final class DatesSpecParser {
    /** A sane bound: the whole list lives in the job's item (DynamoDB's 400 KB limit) and in every preview. */
    static final int MAX_DATES = 1000;

    private static final Set<String> FIELDS = Set.of("dates", "dstGap", "dstOverlap");

    private DatesSpecParser() {}

    static DatesSchedule parse(SpecReader r, ScheduleSpec spec, Instant now) {
        r.onlyAllowed(spec, FIELDS);
        DstPolicy policy = r.policy(spec);
        String path = r.path("dates");
        List<DateSpec> dates = spec.dates();
        if (dates == null || dates.isEmpty()) {
            r.error(
                    path,
                    "is required: a list of instants (\"2030-01-01T09:00:00Z\") or {\"local\", \"zone\"} " + "objects");
            return null;
        }
        if (dates.size() > MAX_DATES) {
            r.error(path, "must have at most " + MAX_DATES + " entries");
            return null;
        }
        if (policy == null) {
            return null;
        }
        List<DateSpec> entries = new ArrayList<>();
        List<Occurrence> occurrences = new ArrayList<>();
        Map<Instant, Integer> seen = new HashMap<>();
        boolean anyLocal = false;
        for (int i = 0; i < dates.size(); i++) {
            String at = path + "[" + i + "]";
            DateSpec d = dates.get(i);
            if (d == null) {
                r.error(at, "is required");
                continue;
            }
            anyLocal |= d.instant() == null;
            List<Occurrence> resolved = d.instant() != null ? instant(r, at, d) : local(r, at, d, policy);
            if (resolved == null) {
                continue;
            }
            entries.add(normalized(d, resolved));
            for (Occurrence o : resolved) {
                Integer other = seen.putIfAbsent(o.at(), i);
                if (other != null && other != i) {
                    r.error(at, "is the same instant (" + o.at() + ") as " + path + "[" + other + "]");
                } else {
                    occurrences.add(o);
                }
            }
        }
        if (!r.errors.isEmpty()) {
            return null;
        }
        // Checked against the creation time only; a stored schedule re-parsed with its createdAt passes it again.
        if (occurrences.stream().noneMatch(o -> !o.at().isBefore(now))) {
            r.error(path, "has no date at or after now: at least one must be in the future");
            return null;
        }
        occurrences.sort(Comparator.comparing(Occurrence::at));
        boolean policyApplies = anyLocal || spec.dstGap() != null || spec.dstOverlap() != null;
        return new DatesSchedule(occurrences, entries, policyApplies ? policy : null);
    }

    private static List<Occurrence> instant(SpecReader r, String at, DateSpec d) {
        if (d.local() != null || d.zone() != null) {
            r.error(at, "is either an instant or {\"local\", \"zone\"}, not both");
            return null;
        }
        Instant t = Instants.parseOrNull(d.instant());
        if (t == null) {
            r.error(
                    at,
                    "is not an ISO-8601 instant with an offset (e.g. 2030-01-01T09:00:00Z); for a wall-clock "
                            + "time use {\"local\": \"2030-01-01T09:00:00\", \"zone\": \"Europe/Berlin\"}");
            return null;
        }
        if (!Instants.supported(t)) {
            r.error(at, Instants.OUT_OF_RANGE);
            return null;
        }
        return List.of(Occurrence.utc(Instants.millis(t)));
    }

    private static List<Occurrence> local(SpecReader r, String at, DateSpec d, DstPolicy policy) {
        LocalDateTime local = null;
        if (d.local() == null) {
            r.error(
                    at + ".local",
                    "is required (an ISO-8601 local date-time such as 2030-03-31T02:30:00), "
                            + "or give the entry as an instant");
        } else {
            try {
                local = LocalDateTime.parse(d.local()).truncatedTo(ChronoUnit.MILLIS);
            } catch (DateTimeParseException e) {
                r.error(at + ".local", "is not an ISO-8601 local date-time without offset (e.g. 2030-03-31T02:30:00)");
            }
        }
        ZoneId zone = r.zone(at + ".zone", d.zone());
        if (local == null || zone == null) {
            return null;
        }
        List<Occurrence> resolved = policy.resolve(local, zone);
        if (resolved.stream().anyMatch(o -> !Instants.supported(o.at()))) {
            r.error(at + ".local", Instants.OUT_OF_RANGE + " in its zone");
            return null;
        }
        return resolved;
    }

    private static DateSpec normalized(DateSpec d, List<Occurrence> resolved) {
        if (d.instant() != null) {
            return DateSpec.of(resolved.getFirst().at().toString());
        }
        LocalDateTime local = LocalDateTime.parse(d.local()).truncatedTo(ChronoUnit.MILLIS);
        return DateSpec.local(DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(local), d.zone());
    }
}
