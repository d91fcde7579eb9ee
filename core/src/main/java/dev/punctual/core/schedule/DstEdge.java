package dev.punctual.core.schedule;

/** Why an occurrence sits where it does around a DST transition; shown by previews, never stored. */
public enum DstEdge {
    /** Stands for a local time that did not exist (spring forward): moved to the first instant after the gap. */
    GAP_SHIFTED("gap-shifted"),
    /** The earlier of the two instants of a local time that happened twice (fall back). */
    OVERLAP_FIRST("overlap-first"),
    /** The later of the two instants of a repeated local time: only with {@code dstOverlap: "twice"}. */
    OVERLAP_SECOND("overlap-second");

    private final String wire;

    DstEdge(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
