package dev.punctual.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.bench.Samples;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReportTest {
    private static Result result(String system, boolean punctual, Scenario sc, long p99Millis, double span) {
        return result(system, punctual, sc, p99Millis, span, Optional.empty());
    }

    private static Result result(
            String system, boolean punctual, Scenario sc, long p99Millis, double span, Optional<Usage> usage) {
        Samples s = new Samples();
        s.add(p99Millis * 1_000_000);
        return new Result(
                system,
                punctual,
                sc,
                "0.00",
                1,
                false,
                s.summary(),
                sc.runs(),
                0,
                0,
                0,
                span,
                1,
                Map.of(),
                1,
                usage,
                null);
    }

    @Test
    void punctualsBurstIsItsThroughputOverTheBestPeersAndSteadyTheBestPeersP99OverItsOwn() {
        Scenario burst = Scenario.burst(100);
        Scenario steady = Scenario.steady(1, 100);
        Result p = result("P", true, burst, 0, 10); // 10 runs/s
        List<Result> all = List.of(
                p,
                result("Q", false, burst, 0, 2), // 50 runs/s: the best
                result("D", false, burst, 0, 5));
        assertThat(Report.versusBestPeer(p, all)).isEqualTo("throughput ×0.20");

        Result ps = result("P", true, steady, 40, 1);
        List<Result> steadyAll = List.of(ps, result("Q", false, steady, 20, 1), result("D", false, steady, 900, 1));
        assertThat(Report.versusBestPeer(ps, steadyAll)).isEqualTo("p99 ×0.50");
        assertThat(Report.versusBestPeer(steadyAll.get(1), steadyAll)).isEqualTo("—");
    }

    @Test
    void usageDifferencesAreTakenPerCounter() {
        Usage before = new Usage(Map.of("calls:DynamoDb:GetItem", 2.0, "wcu:t", 1.0));
        Usage after = new Usage(Map.of("calls:DynamoDb:GetItem", 5.0, "wcu:t", 4.0, "wcu:t:i", 2.0));
        Usage d = after.minus(before);
        assertThat(d.sum("calls:")).isEqualTo(3.0);
        assertThat(d.sum("wcu:")).isEqualTo(5.0);
    }

    @Test
    void unitsByOperationArePerRunLargestFirstWithTableAndIndexApart() {
        Usage u = new Usage(Map.of(
                "wcu-by:TransactWriteItems:p-jobs", 20.0,
                "wcu-by:TransactWriteItems:p-runs:byDue", 30.0,
                "rcu-by:GetItem:p-jobs", 5.0,
                "wcu:p-jobs", 20.0));
        String table = Report.unitsByOperation(List.of(result("P", true, Scenario.burst(10), 0, 1, Optional.of(u))));
        assertThat(table.lines().filter(l -> l.startsWith("| burst")).toList())
                .containsExactly(
                        "| burst 10 | TransactWriteItems | p-runs:byDue   | 3.00 | 0.00 |",
                        "| burst 10 | TransactWriteItems | p-jobs         | 2.00 | 0.00 |",
                        "| burst 10 | GetItem            | p-jobs         | 0.00 | 0.50 |");
    }
}
