package dev.punctual.core.schedule;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * An explicit list of occurrences: {@code occurrences} sorted, distinct, already resolved from {@code entries}
 * (normalized as given) under {@code policy} (null when no entry is a local time, so no policy applies).
 */
public record DatesSchedule(List<Occurrence> occurrences, List<DateSpec> entries, DstPolicy policy)
        implements Schedule.Local {

    public DatesSchedule {
        occurrences = List.copyOf(occurrences);
        entries = List.copyOf(entries);
    }

    @Override
    public Optional<Occurrence> firstOccurrence(Instant now) {
        return from(now, true);
    }

    @Override
    public Optional<Occurrence> nextOccurrence(Instant previous) {
        return from(previous, false);
    }

    /** The earliest occurrence at (if {@code inclusive}) or after {@code t}: a binary search, entries can be 1000. */
    private Optional<Occurrence> from(Instant t, boolean inclusive) {
        int lo = 0;
        int hi = occurrences.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            Instant at = occurrences.get(mid).at();
            if (at.isAfter(t) || (inclusive && at.equals(t))) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo < occurrences.size() ? Optional.of(occurrences.get(lo)) : Optional.empty();
    }

    @Override
    public ScheduleSpec spec() {
        return ScheduleSpec.dates(entries, policy);
    }
}
