package dev.punctual.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** SIGTERM to executors holding runs: they drain within the grace period and stop by themselves. */
@Order(7)
class GracefulShutdownTest extends FaultScenarios {
    // ---- 13. SIGTERM: graceful drain ---------------------------------------------------------------------------

    @Test
    @Order(1)
    void sigtermDuringRunsDrainsGracefully() throws Exception {
        scenario("13. SIGTERM during runs (graceful drain)", Map.of("shutdownGrace", "PT3S"), s -> {
            int longOnes = RUNS / 5;
            Thread submit = s.startUnderLoad(RUNS - longOnes, 0.3, 1.5);
            s.awaitStarts(RUNS / 4, Duration.ofSeconds(60));
            // Runs longer than the grace period, started just before the signal.
            List<JobView> slow = new ArrayList<>();
            for (int i = 0; i < longOnes; i++) {
                slow.add(s.submit(
                        s.api, Stage.WORKER, "slow-" + i, s.env(6.0, 0), Stage.now(), 60, 3, RunState.SUCCEEDED, 1));
            }
            Set<String> slowIds = new HashSet<>();
            slow.forEach(j -> slowIds.add(j.id()));
            List<Exec> victims = s.live().subList(0, 2);
            // Each victim holds a run that cannot finish within the grace period, and others that can.
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> victims.stream()
                            .allMatch(v -> s.heldBy(v.id).stream().anyMatch(h -> slowIds.contains(h.jobId()))));
            List<Run> held = new ArrayList<>();
            long termAt = System.nanoTime();
            for (Exec v : victims) {
                held.addAll(s.heldBy(v.id));
                v.term();
            }
            s.startExecutors(2);
            Duration bound = s.settings
                    .execution()
                    .shutdownGrace()
                    .plus(s.settings.execution().killGrace())
                    .plusSeconds(15);
            for (Exec v : victims) {
                assertThat(v.awaitExit(bound))
                        .as("%s stopped by itself after SIGTERM", v.id)
                        .isTrue();
                assertThat(v.lines()).as("%s drained", v.id).contains("DRAINED");
            }
            double stopSecs = (System.nanoTime() - termAt) / 1e9;
            submit.join();
            Checker.Result r = s.drainAndCheck(DRAIN);
            Set<String> victimIds = new HashSet<>();
            victims.forEach(v -> victimIds.add(v.id));
            long finishedInGrace = held.stream()
                    .map(h -> r.finalRuns().get(h.jobId() + "/" + h.runId()))
                    .filter(f -> f.attempt()
                                    == held.stream()
                                            .filter(h -> h.runId().equals(f.runId())
                                                    && h.jobId().equals(f.jobId()))
                                            .findFirst()
                                            .orElseThrow()
                                            .attempt()
                            && victimIds.contains(f.leaseOwner()))
                    .count();
            long released = held.size() - finishedInGrace;
            s.notes.add("2 executors got SIGTERM holding " + held.size() + " runs: " + finishedInGrace
                    + " finished within the "
                    + s.settings.execution().shutdownGrace().toSeconds() + " s grace, "
                    + released + " killed, released and run again elsewhere; both stopped by themselves in "
                    + String.format(Locale.ROOT, "%.1f s", stopSecs));
            assertThat(finishedInGrace)
                    .as("runs finish during the grace period")
                    .isPositive();
            assertThat(released)
                    .as("runs longer than the grace are released, then run again")
                    .isPositive();
        });
    }
}
