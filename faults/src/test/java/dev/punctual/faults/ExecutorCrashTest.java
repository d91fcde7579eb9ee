package dev.punctual.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Executors that die mid-work: kill -9, and crashes injected right before the result write or the message delete. */
@Order(1)
class ExecutorCrashTest extends FaultScenarios {
    // ---- 1. kill -9 --------------------------------------------------------------------------------------------

    @Test
    @Order(1)
    void killMinus9OfAnExecutorMidRun() throws Exception {
        scenario("1. kill -9 of an executor mid-run", s -> {
            s.startSweeperAndExecutors(3);
            // Due over RUNS / 5 seconds, not all at once: the second kill needs runs still to come, however long
            // the first kill's replacement takes to start. (All due at once, a fast drain had run them all by
            // then, and no executor held anything to be killed with.)
            Instant from = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            AtomicInteger next = new AtomicInteger();
            Thread submit = Thread.ofPlatform()
                    .start(() -> s.submitWorkers(
                            s.api, RUNS, 0.2, 0.8, () -> Stage.once(from.plusMillis(200L * next.getAndIncrement()))));
            List<Run> held = new ArrayList<>();
            for (int k = 1; k <= 2; k++) {
                s.awaitStarts(RUNS * k / 4, Duration.ofSeconds(60));
                // Whichever executor holds runs at this moment is killed.
                AtomicReference<Exec> holder = new AtomicReference<>();
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> {
                            for (Exec e : s.live()) {
                                if (!s.heldBy(e.id).isEmpty()) {
                                    holder.set(e);
                                    return true;
                                }
                            }
                            return false;
                        });
                Exec victim = holder.get();
                held.addAll(s.heldBy(victim.id));
                victim.kill9();
                s.startExecutor(Map.of()).awaitReady();
            }
            submit.join();
            Checker.Result r = s.drainAndCheck(DRAIN);
            long rerun = held.stream()
                    .filter(h -> r.finalRuns().get(h.jobId() + "/" + h.runId()).attempt() > h.attempt())
                    .count();
            s.notes.add("2 executors killed holding " + held.size() + " runs, " + rerun + " re-run by others");
            assertThat(rerun)
                    .as("runs held by a killed executor are taken over by a new attempt")
                    .isPositive();
        });
    }

    // ---- 1b. kill -9 while its binary outlives the lease -------------------------------------------------------

    /**
     * kill -9 of an executor process on a plain host (bin/run-executor), while it runs a binary longer than the
     * lease. The binary runs in its own session (setsid), so it used to be orphaned, not killed, and kept running
     * while the run was taken over by another executor; now its parent-death signal (setpriv --pdeathsig) kills
     * it with the executor. (On ECS the whole container dies with the executor anyway.)
     */
    @Test
    @Order(2)
    void killMinus9WhileItsBinaryOutlivesTheLease() throws Exception {
        scenario("1b. kill -9, binary longer than the lease", s -> {
            Exec victim = s.startSweeperAndExecutors(1).get(0);
            for (int i = 0; i < 2; i++) {
                s.submit(
                        s.api,
                        Stage.WORKER,
                        "long-" + i,
                        s.env(FaultSettings.LEASE.toSeconds() * 2.5, 0),
                        Stage.now(),
                        60,
                        3,
                        RunState.SUCCEEDED,
                        1);
            }
            s.awaitStarts(2, Duration.ofSeconds(30));
            victim.kill9();
            s.startExecutors(1);
            Checker.Result r = s.drainAndCheck(DRAIN);
            s.notes.add("executor killed while running 2 binaries of " + FaultSettings.LEASE.toSeconds() * 2.5
                    + " s (lease " + FaultSettings.LEASE.toSeconds() + " s); both retaken by another executor");
        });
    }

    // ---- 3. crash after the binary exits, before the result is written -----------------------------------------

    @Test
    @Order(3)
    void crashAfterTheBinaryExitsBeforeTheResultIsWritten() throws Exception {
        scenario("3. crash after exit, before the result", s -> {
            Crash c = crashOneExecutor(s, "halt-before-result");
            Run hit = c.result().finalRuns().get(c.jobId() + "/" + c.runId());
            int n = starts(c.result(), c.jobId(), c.runId());
            s.notes.add("result of " + c.runId().substring(0, 15) + " lost by the crash: the run was started " + n
                    + "x, recorded attempt " + hit.attempt());
            assertThat(n).as("a run whose result was lost runs again").isGreaterThan(1);
            assertThat(hit.attempt()).isGreaterThan(1);
        });
    }

    // ---- 4. crash after the result, before the message is deleted ----------------------------------------------

    @Test
    @Order(4)
    void crashAfterTheResultBeforeTheMessageIsDeleted() throws Exception {
        scenario("4. crash after the result, before the delete", s -> {
            Crash c = crashOneExecutor(s, "halt-before-delete");
            Stage.Expect e = s.expected.get(c.jobId());
            int n = starts(c.result(), c.jobId(), c.runId());
            s.notes.add("message of " + c.runId().substring(0, 15) + " not deleted: redelivered, started " + n
                    + "x (dictated " + e.dictatedStarts() + ")");
            assertThat(n)
                    .as("a recorded result is final: the redelivered message must not run it again")
                    .isEqualTo(e.dictatedStarts());
        });
    }

    /** The run an injected crash hit, and the check after the drain. */
    private record Crash(String jobId, String runId, Checker.Result result) {}

    /**
     * Runs work on an executor that halts (as kill -9 would) at the 4th point {@code injection} names and on two
     * healthy ones; once it has crashed, a fresh executor replaces it and the work drains.
     */
    private static Crash crashOneExecutor(Stage s, String injection) throws InterruptedException {
        s.startSweeper(s.api, "sweeper");
        Exec victim = s.startExecutor(Map.of(injection, "4"));
        s.startExecutors(2);
        victim.awaitReady();
        Thread submit = s.submitWorkersMeanwhile(RUNS, 0.1, 0.5);
        assertThat(victim.awaitExit(Duration.ofSeconds(60)))
                .as("the injected crash happened")
                .isTrue();
        assertThat(victim.process.exitValue()).isEqualTo(FaultExecutor.HALT_STATUS);
        String[] fault = victim.faultLines().get(0).split(" ");
        s.startExecutor(Map.of()).awaitReady();
        submit.join();
        return new Crash(fault[2], fault[3], s.drainAndCheck(DRAIN));
    }
}
