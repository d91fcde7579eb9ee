package dev.punctual.core.schedule;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Optional;

/**
 * The instants of a wall-clock {@link CronExpression} in a zone, under a {@link DstPolicy}, strictly increasing.
 *
 * <p>Local time is not monotonic in instants: after a fall-back transition the wall clock repeats an hour, and a
 * spring-forward gap's local times map to no instant at all. So instead of walking local matches, this walks the
 * zone's offset segments (the spans between transitions, each with one fixed offset, where local time and instants
 * do move together) and asks each for its first match after the previous occurrence:
 *
 * <ul>
 *   <li>a segment that starts with a gap first offers the gap's instant when a local time inside the gap matches
 *       ({@code shift}), standing for every such time at once, so the run is never doubled;</li>
 *   <li>a segment that starts with an overlap begins, under {@code once}, where the repeated local times end: their
 *       first instants were in the previous segment;</li>
 *   <li>otherwise a match belongs to the segment whose local range contains it.</li>
 * </ul>
 *
 * Because segments are visited in instant order and each yields its smallest candidate, {@link #after} returns
 * the smallest occurrence strictly after its argument: no duplicates and no going back, whatever the expression.
 */
record CronTimeline(CronExpression cron, ZoneId zone, DstPolicy policy) {
    /**
     * How far to look for the next occurrence. Sparse expressions legitimately skip decades ({@code 0 0 ? 2 1#5}, a
     * fifth Monday in February); but one whose every match falls in a DST gap under {@code skip} (the second Sunday
     * of March at 02:30 in New York) would otherwise be searched forever.
     */
    static final int SEARCH_YEARS = 100;

    /** The first occurrence strictly after {@code after}; empty if the expression does not match again in time. */
    Optional<Occurrence> after(Instant after) {
        ZoneRules rules = zone.getRules();
        LocalDateTime limit = LocalDateTime.ofInstant(after, ZoneOffset.UTC).plusYears(SEARCH_YEARS);
        // The transition that opened the segment holding "after" (null before the zone's first or in a fixed zone).
        ZoneOffsetTransition opened = rules.previousTransition(after.plusNanos(1));
        Instant segmentStart = opened == null ? null : opened.getInstant();
        ZoneOffset offset = opened == null ? rules.getOffset(after) : opened.getOffsetAfter();
        while (true) {
            ZoneOffsetTransition closes = rules.nextTransition(segmentStart == null ? after : segmentStart);
            if (opened != null
                    && opened.isGap()
                    && opened.getInstant().isAfter(after)
                    && policy.gap() == DstPolicy.Gap.SHIFT
                    && matchesIn(opened.getDateTimeBefore(), opened.getDateTimeAfter())) {
                return Optional.of(new Occurrence(DstPolicy.gapShift(opened), zone, DstEdge.GAP_SHIFTED));
            }
            // Matches must come after "after" seen in this segment's offset, and not before the segment begins.
            LocalDateTime from = LocalDateTime.ofInstant(after, offset).truncatedTo(ChronoUnit.SECONDS);
            if (opened != null) {
                LocalDateTime segmentFrom = opened.isOverlap() && policy.overlap() == DstPolicy.Overlap.ONCE
                        ? opened.getDateTimeBefore()
                        : opened.getDateTimeAfter();
                from = max(from, segmentFrom.minusSeconds(1));
            }
            Optional<LocalDateTime> match = cron.nextAfter(from);
            if (match.isEmpty() || match.get().isAfter(limit)) {
                return Optional.empty();
            }
            LocalDateTime local = match.get();
            if (closes == null || local.isBefore(closes.getDateTimeBefore())) {
                return Optional.of(new Occurrence(local.toInstant(offset), zone, edge(local, opened, closes)));
            }
            opened = closes;
            segmentStart = closes.getInstant();
            offset = closes.getOffsetAfter();
        }
    }

    private boolean matchesIn(LocalDateTime fromInclusive, LocalDateTime toExclusive) {
        return cron.nextAfter(fromInclusive.minusSeconds(1))
                .filter(t -> t.isBefore(toExclusive))
                .isPresent();
    }

    /** A local time between an overlap's two wall-clock ranges is repeated: say which of its instants this is. */
    private static DstEdge edge(LocalDateTime local, ZoneOffsetTransition opened, ZoneOffsetTransition closes) {
        if (opened != null && opened.isOverlap() && local.isBefore(opened.getDateTimeBefore())) {
            return DstEdge.OVERLAP_SECOND;
        }
        if (closes != null && closes.isOverlap() && !local.isBefore(closes.getDateTimeAfter())) {
            return DstEdge.OVERLAP_FIRST;
        }
        return null;
    }

    private static LocalDateTime max(LocalDateTime a, LocalDateTime b) {
        return a.isAfter(b) ? a : b;
    }
}
