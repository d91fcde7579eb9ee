package dev.punctual.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import dev.punctual.bench.Samples;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A priority scenario's runs, and what the report makes of their starts lane by lane. */
class LanesTest {
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    private static final long T0_NANOS = T0.toEpochMilli() * 1_000_000L;

    @Test
    void theLowRunsComeFirstThenTheHighOnesAllDueAtT0EachInItsLane() {
        Scenario sc = Scenario.priority(3, 2);
        assertThat(sc.runs()).isEqualTo(5);
        assertThat(sc.low()).isEqualTo(3);
        assertThat(sc.high()).isEqualTo(2);
        assertThat(sc.allAtOnce()).isTrue();
        assertThat(sc.name()).isEqualTo("priority 3 low + 2 high");
        assertThat(sc.dues(T0))
                .containsExactly(
                        new Contender.Due("low-0", T0, "low"),
                        new Contender.Due("low-1", T0, "low"),
                        new Contender.Due("low-2", T0, "low"),
                        new Contender.Due("high-0", T0, "high"),
                        new Contender.Due("high-1", T0, "high"));
        assertThat(Scenario.burst(2).dues(T0)).allMatch(d -> d.priority() == null);
        assertThatThrownBy(() -> Scenario.priority(0, 5)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachLanesLatenessAndThroughputAndWhetherLowKeptStartingWhileHighWent() {
        Scenario sc = Scenario.priority(4, 2);
        // Starts, ms after T0: high at 100 and 300; low at 200, 1200, 1500, and one never.
        Map<String, Long> starts = new HashMap<>();
        starts.put("high-0", at(100));
        starts.put("high-1", at(300));
        starts.put("low-0", at(1_200));
        starts.put("low-1", at(200));
        starts.put("low-2", at(1_500));
        Lanes l = Lanes.of(new Starts(starts, 5, 0), sc.dues(T0), T0);

        assertThat(l.lanes()).extracting(Lanes.Lane::name).containsExactly("high", "low");
        Lanes.Lane high = l.lanes().get(0);
        Lanes.Lane low = l.lanes().get(1);
        assertThat(high.started()).isEqualTo(2);
        assertThat(high.expected()).isEqualTo(2);
        assertThat(high.lateness().p50Nanos()).isEqualTo(100_000_000L);
        assertThat(high.lateness().maxNanos()).isEqualTo(300_000_000L);
        // 2 runs by 0.3 s after T0
        assertThat(high.throughput()).isCloseTo(2 / 0.3, offset(1e-9));
        assertThat(low.started()).isEqualTo(3);
        assertThat(low.expected()).isEqualTo(4);
        assertThat(low.lateness().p50Nanos()).isEqualTo(1_200_000_000L);
        assertThat(low.throughput()).isCloseTo(3 / 1.5, offset(1e-9));

        assertThat(l.highWindowNanos()).isEqualTo(300_000_000L);
        // low-1 at 200 ms started before the last high one
        assertThat(l.lowDuringHigh()).isEqualTo(1);
        // the first two starts: high-0 at 100, low-1 at 200
        assertThat(l.highAmongFirst()).isEqualTo(1);
        // low gaps: T0 → 200, 200 → 1200, 1200 → 1500
        assertThat(l.longestLowGapNanos()).isEqualTo(1_000_000_000L);
        assertThat(l.maxLatenessNanos()).isEqualTo(1_500_000_000L);
        assertThat(l.aging()).startsWith("not exercised: longest wait 1500.0 ms");
    }

    @Test
    void agingSaysWhetherTheLongestWaitReachedRequeueAfterOrPassedThePromise() {
        Scenario sc = Scenario.priority(1, 1);
        assertThat(lanes(sc, 11 * 60_000L).aging()).startsWith("reached: longest wait 660.00 s");
        assertThat(lanes(sc, 14 * 60_000L).aging()).startsWith("PAST the ~13 min promise");
    }

    @Test
    void theReportHasARowPerLaneAndOneForTheOrderOfStarts() {
        Scenario sc = Scenario.priority(1, 1);
        Lanes l = lanes(sc, 2_000);
        Samples s = new Samples();
        s.add(1);
        Result r = new Result(
                "P", true, sc, "0.00", 1, false, s.summary(), 2, 0, 0, 0, 2, 0.5, Map.of(), 1, Optional.empty(), l);
        String report = Report.lanes(List.of(r));
        assertThat(report.lines()
                        .filter(line -> line.startsWith("| priority"))
                        .map(LanesTest::cells)
                        .toList())
                .containsExactly(
                        List.of("priority 1 low + 1 high", "high", "1 of 1", "10.0 ms / 10.0 ms / 10.0 ms", "100"),
                        List.of("priority 1 low + 1 high", "low", "1 of 1", "2000.0 ms / 2000.0 ms / 2000.0 ms", "1"),
                        List.of(
                                "priority 1 low + 1 high",
                                "10.0 ms",
                                "0",
                                "1 of 1",
                                "2000.0 ms",
                                "250.0",
                                "not exercised: longest wait 2000.0 ms < requeue-after 10 min, no run re-sent a lane"
                                        + " up"));
        assertThat(Report.lanes(List.of())).isEmpty();
    }

    private static List<String> cells(String row) {
        return Arrays.stream(row.substring(1, row.length() - 1).split("\\|"))
                .map(String::strip)
                .toList();
    }

    /** The high run starts 10 ms after T0, the low one {@code lowMillis} after. */
    private static Lanes lanes(Scenario sc, long lowMillis) {
        Map<String, Long> starts = Map.of("high-0", at(10), "low-0", at(lowMillis));
        return Lanes.of(new Starts(starts, 2, 0), sc.dues(T0), T0);
    }

    private static long at(long millisAfterT0) {
        return T0_NANOS + millisAfterT0 * 1_000_000L;
    }
}
