package dev.punctual.core.schedule;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * One fire instant of a schedule, with the zone its wall-clock time is read in and its DST provenance
 * ({@code dst} null: an ordinary instant).
 */
public record Occurrence(Instant at, ZoneId zone, DstEdge dst) {

    /** An instant of a kind without a time zone (now, once, interval, a dates entry given as an instant). */
    public static Occurrence utc(Instant at) {
        return new Occurrence(at, ZoneOffset.UTC, null);
    }
}
