package dev.punctual.core.schedule;

import dev.punctual.core.time.Instants;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A validated schedule: where its occurrences fall. Recurring kinds are materialized one occurrence at a time: the
 * dispatcher asks for {@link #next} of the run it just queued, so nothing is ever computed far ahead.
 *
 * <p>Occurrences are nominal instants. Jitter (a later increment) belongs on top of them, where a run is created from
 * an occurrence: it must not feed back into {@link #next}, which has to be given the nominal instant (so a run's
 * jittered due time must be stored beside, not instead of, the occurrence it stands for).
 */
public sealed interface Schedule permits Schedule.Now, Schedule.Once, Schedule.Interval, Schedule.Local {

    /** The first occurrence at or after {@code now}, if any. */
    Optional<Instant> first(Instant now);

    /** The occurrence strictly after {@code previous}, if any. */
    Optional<Instant> next(Instant previous);

    ScheduleSpec spec();

    /** {@link #first} with the occurrence's zone and DST provenance, for previews. */
    default Optional<Occurrence> firstOccurrence(Instant now) {
        return first(now).map(Occurrence::utc);
    }

    /** {@link #next} with the occurrence's zone and DST provenance, for previews. */
    default Optional<Occurrence> nextOccurrence(Instant previous) {
        return next(previous).map(Occurrence::utc);
    }

    /**
     * A schedule of wall-clock times in zones, whose occurrences are worked out with their zone and DST provenance:
     * its instants are theirs.
     */
    sealed interface Local extends Schedule permits CronSchedule, DatesSchedule {
        @Override
        Optional<Occurrence> firstOccurrence(Instant now);

        @Override
        Optional<Occurrence> nextOccurrence(Instant previous);

        @Override
        default Optional<Instant> first(Instant now) {
            return firstOccurrence(now).map(Occurrence::at);
        }

        @Override
        default Optional<Instant> next(Instant previous) {
            return nextOccurrence(previous).map(Occurrence::at);
        }
    }

    record Now() implements Schedule {
        @Override
        public Optional<Instant> first(Instant now) {
            return Optional.of(now);
        }

        @Override
        public Optional<Instant> next(Instant previous) {
            return Optional.empty();
        }

        @Override
        public ScheduleSpec spec() {
            return ScheduleSpec.now();
        }
    }

    /** Runs once at {@code at}; if that is already past when the job is created, it runs at once. */
    record Once(Instant at) implements Schedule {
        @Override
        public Optional<Instant> first(Instant now) {
            return Optional.of(at.isBefore(now) ? now : at);
        }

        @Override
        public Optional<Instant> next(Instant previous) {
            return Optional.empty();
        }

        @Override
        public ScheduleSpec spec() {
            return ScheduleSpec.once(at.toString());
        }
    }

    /** Occurrences at {@code start + k·every}, k ≥ 0, up to and including {@code end} when set. */
    record Interval(Duration every, Instant start, Instant end) implements Schedule {
        @Override
        public Optional<Instant> first(Instant now) {
            if (!now.isAfter(start)) {
                return bounded(start);
            }
            // Rounded up to the next millisecond: occurrences are whole milliseconds, and the first one must not
            // fall before a "now" that carries microseconds.
            long elapsed = Duration.between(start, now).plusNanos(999_999).toMillis();
            long step = every.toMillis();
            long k = (elapsed + step - 1) / step;
            return bounded(start.plusMillis(k * step));
        }

        @Override
        public Optional<Instant> next(Instant previous) {
            if (previous.isBefore(start)) {
                return bounded(start);
            }
            long step = every.toMillis();
            long k = Duration.between(start, previous).toMillis() / step + 1;
            return bounded(start.plusMillis(k * step));
        }

        private Optional<Instant> bounded(Instant t) {
            return (end != null && t.isAfter(end)) || t.isAfter(Instants.MAX_SUPPORTED)
                    ? Optional.empty()
                    : Optional.of(t);
        }

        @Override
        public ScheduleSpec spec() {
            return ScheduleSpec.interval(every.toString(), start.toString(), end == null ? null : end.toString());
        }
    }
}
