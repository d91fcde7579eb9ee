package dev.punctual.bench.compare;

import dev.punctual.bench.Samples;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A priority scenario's starts by lane ({@link Scenario#priority}), from the binary's own stamps: each lane's
 * lateness and throughput; whether {@code high} went first (its runs among the first starts, and the window from T0
 * to its last start); whether {@code low} kept starting (its starts inside that window, and its longest gap); and
 * the longest wait of any run beside what aging promises.
 *
 * @param lanes each lane's figures, high first
 * @param highWindowNanos from T0 to the last high run's first start (0: none started)
 * @param lowDuringHigh low runs whose first start was at or before the last high run's
 * @param highAmongFirst of the first {@code high} starts of the scenario (any lane), how many were high
 * @param longestLowGapNanos the longest time without a low start, from T0 to the last low start (T0 to the first
 *     low start counts as a gap)
 * @param maxLatenessNanos the latest first start of any run, minus its due instant
 */
public record Lanes(
        List<Lane> lanes,
        long highWindowNanos,
        int lowDuringHigh,
        int highAmongFirst,
        long longestLowGapNanos,
        long maxLatenessNanos) {

    /**
     * How long a run waits in its lane before the sweeper also sends it a lane up: {@code requeue-after} (10 min,
     * {@code Sweep.DEFAULT_REQUEUE_AFTER}), counted from its due instant.
     */
    static final Duration REQUEUE_AFTER = Duration.ofMinutes(10);

    /** What the Lanes of docs/api.md promise a low run: in low at most about this long (requeue-after, lookahead, a sweep). */
    static final Duration AGING_PROMISE = Duration.ofMinutes(13);

    /**
     * One lane's figures: runs scheduled in it, how many started, their lateness (null: none started) and runs
     * started a second from T0 to the lane's last start.
     */
    public record Lane(String name, int expected, int started, Samples.Summary lateness, double throughput) {}

    public static Lanes of(Starts seen, List<Contender.Due> dues, Instant t0) {
        long t0Nanos = t0.toEpochMilli() * 1_000_000L;
        // lane -> its runs' first starts, and their lateness
        Map<String, List<Long>> startsByLane = new TreeMap<>(Comparator.comparingInt(Lanes::rank));
        Map<String, Samples> latenessByLane = new TreeMap<>(Comparator.comparingInt(Lanes::rank));
        Map<String, Integer> expected = new TreeMap<>(Comparator.comparingInt(Lanes::rank));
        List<long[]> all = new ArrayList<>(); // {start, 1 if high}
        long maxLateness = Long.MIN_VALUE;
        for (Contender.Due d : dues) {
            String lane = Objects.requireNonNullElse(d.priority(), "normal");
            expected.merge(lane, 1, Integer::sum);
            startsByLane.computeIfAbsent(lane, k -> new ArrayList<>());
            latenessByLane.computeIfAbsent(lane, k -> new Samples());
            Long start = seen.firstStartNanos().get(d.key());
            if (start == null) {
                continue;
            }
            long lateness = start - d.at().toEpochMilli() * 1_000_000L;
            startsByLane.get(lane).add(start);
            latenessByLane.get(lane).add(lateness);
            all.add(new long[] {start, lane.equals(Scenario.HIGH) ? 1 : 0});
            maxLateness = Math.max(maxLateness, lateness);
        }
        List<Lane> lanes = new ArrayList<>();
        startsByLane.forEach((lane, starts) -> {
            starts.sort(null);
            Samples late = latenessByLane.get(lane);
            double span = starts.isEmpty() ? 0 : (starts.getLast() - t0Nanos) / 1e9;
            lanes.add(new Lane(
                    lane,
                    expected.get(lane),
                    starts.size(),
                    late.size() == 0 ? null : late.summary(),
                    span <= 0 ? 0 : starts.size() / span));
        });
        List<Long> high = startsByLane.getOrDefault(Scenario.HIGH, List.of());
        List<Long> low = startsByLane.getOrDefault(Scenario.LOW, List.of());
        long highEnd = high.isEmpty() ? t0Nanos : high.getLast();
        int lowDuringHigh = high.isEmpty()
                ? 0
                : (int) low.stream().filter(s -> s <= highEnd).count();
        all.sort(Comparator.comparingLong(a -> a[0]));
        int firstN = expected.getOrDefault(Scenario.HIGH, 0);
        int highAmongFirst =
                (int) all.stream().limit(firstN).filter(a -> a[1] == 1).count();
        long gap = 0;
        long previous = t0Nanos;
        for (long s : low) {
            gap = Math.max(gap, s - previous);
            previous = s;
        }
        return new Lanes(
                lanes,
                high.isEmpty() ? 0 : highEnd - t0Nanos,
                lowDuringHigh,
                highAmongFirst,
                gap,
                all.isEmpty() ? 0 : maxLateness);
    }

    /** What the longest wait says of aging's promise, e.g. "not exercised: the longest wait 45.2 s < 10 min". */
    public String aging() {
        Duration max = Duration.ofNanos(maxLatenessNanos);
        if (max.compareTo(REQUEUE_AFTER) < 0) {
            return "not exercised: longest wait " + Report.ms(maxLatenessNanos / 1e6)
                    + " < requeue-after 10 min, no run re-sent a lane up";
        }
        if (max.compareTo(AGING_PROMISE) <= 0) {
            return "reached: longest wait " + Report.ms(maxLatenessNanos / 1e6) + ", within the ~13 min promise";
        }
        return "PAST the ~13 min promise: longest wait " + Report.ms(maxLatenessNanos / 1e6);
    }

    private static int rank(String lane) {
        return switch (lane) {
            case Scenario.HIGH -> 0;
            case "normal" -> 1;
            case Scenario.LOW -> 2;
            default -> 3;
        };
    }
}
