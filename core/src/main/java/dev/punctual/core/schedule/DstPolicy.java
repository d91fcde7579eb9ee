package dev.punctual.core.schedule;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.List;
import java.util.Locale;

/**
 * What a wall-clock time means where the zone's offset changes. In a gap (spring forward) the local time never
 * happens; in an overlap (fall back) it happens twice, one offset apart.
 */
public record DstPolicy(Gap gap, Overlap overlap) {
    public static final DstPolicy DEFAULT = new DstPolicy(Gap.SHIFT, Overlap.ONCE);

    /**
     * {@code shift}: run at the first instant after the gap (the transition itself), as classic cron does: the run
     * is late rather than lost, and every time in one gap collapses into that single instant. {@code skip}: no run.
     */
    public enum Gap {
        SHIFT,
        SKIP;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** {@code once}: only the first (earlier) instant, as the wall clock reads it first. {@code twice}: both. */
    public enum Overlap {
        ONCE,
        TWICE;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The instants of one wall-clock time in {@code zone}, in order: none, one or (overlap, twice) two. */
    public List<Occurrence> resolve(LocalDateTime local, ZoneId zone) {
        ZoneOffsetTransition t = zone.getRules().getTransition(local);
        if (t == null) {
            return List.of(new Occurrence(local.atZone(zone).toInstant(), zone, null));
        }
        if (t.isGap()) {
            return gap == Gap.SKIP ? List.of() : List.of(new Occurrence(gapShift(t), zone, DstEdge.GAP_SHIFTED));
        }
        Occurrence first = new Occurrence(local.toInstant(t.getOffsetBefore()), zone, DstEdge.OVERLAP_FIRST);
        if (overlap == Overlap.ONCE) {
            return List.of(first);
        }
        return List.of(first, new Occurrence(local.toInstant(t.getOffsetAfter()), zone, DstEdge.OVERLAP_SECOND));
    }

    /** Where a time inside this gap runs under {@code shift}: the one place both kinds and the preview agree on. */
    static Instant gapShift(ZoneOffsetTransition gapTransition) {
        return gapTransition.getInstant();
    }
}
