package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.exec.RunWorker;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobView;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An executor's graceful stop (what SIGTERM does to an executor process): no new receives; a run that finishes
 * within the grace period is recorded as usual; one that does not is killed and released: FAILED with its lease
 * cleared and its message visible at once, so another executor takes it over as the next attempt.
 */
class GracefulShutdownTest {
    @TempDir
    Path tmp;

    private Punctual stack() {
        return Fixture.stack(
                Fixture.realTimeSettings().lease(Duration.ofSeconds(20)).build(), Clock.systemUTC());
    }

    private static JobView job(Punctual p, String script, Path witness) {
        return Fixture.createJob(
                p,
                "drain",
                script,
                Fixture.once(java.time.Instant.now()),
                j -> j.env(Fixture.witnessEnv(witness)).maxAttempts(2));
    }

    @Test
    void aRunStillRunningAfterTheGracePeriodIsKilledAndReleasedToAnotherExecutor() throws Exception {
        Punctual p = stack();
        Path witness = Fixture.witness(tmp);
        // The first attempt outlives any grace period; the second succeeds at once.
        JobView job = job(
                p,
                "echo \"start $SCHEDULER_ATTEMPT\" >> \"$WITNESS\";"
                        + " if [ \"$SCHEDULER_ATTEMPT\" = 1 ]; then sleep 120; fi; echo \"end $SCHEDULER_ATTEMPT\" >> \"$WITNESS\"",
                witness);
        String runId = Fixture.runsOf(p, job.id()).getFirst().runId();
        ExecutorPool first = p.startExecutor("ex-stopping", tmp.resolve("a"), 1);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !Fixture.lines(witness).isEmpty()
                        && Fixture.lines(witness).contains("start 1"));

        long t = System.nanoTime();
        first.close();
        Duration took = Duration.ofNanos(System.nanoTime() - t);

        Run released = Fixture.run(p, job.id(), runId);
        assertThat(released.state()).isEqualTo(RunState.FAILED);
        assertThat(released.error()).isEqualTo(RunWorker.SHUTDOWN);
        assertThat(released.attempt()).isEqualTo(1);
        assertThat(released.leaseExpiry()).as("lease cleared").isNull();
        assertThat(Fixture.lines(witness)).containsExactly("start 1");
        assertThat(took)
                .as("grace period (2 s) plus the kill, not the binary's 120 s")
                .isLessThan(Duration.ofSeconds(20));
        System.out.println("[drain] close() returned after " + took.toMillis() + " ms");

        // Visible again at once (not after the 20 s lease): a second executor finishes it as attempt 2.
        try (ExecutorPool second = p.startExecutor("ex-next", tmp.resolve("b"), 1)) {
            Run done;
            try {
                done = await().atMost(Duration.ofSeconds(15))
                        .until(() -> Fixture.run(p, job.id(), runId), r -> r.state() == RunState.SUCCEEDED);
            } catch (ConditionTimeoutException e) {
                // Seen once in CI (1 in about 30 runs), not reproduced alone: say where the message was.
                throw new AssertionError(
                        "not finished by ex-next within 15 s; queue " + Fixture.queueCounts(p) + ", run "
                                + Fixture.run(p, job.id(), runId),
                        e);
            }
            assertThat(done.attempt()).isEqualTo(2);
            assertThat(done.leaseOwner()).isEqualTo("ex-next");
        }
        assertThat(Fixture.lines(witness)).containsExactly("start 1", "start 2", "end 2");
    }

    @Test
    void aRunThatFinishesWithinTheGracePeriodIsRecordedNormally() throws Exception {
        Punctual p = stack();
        Path witness = Fixture.witness(tmp);
        JobView job = job(p, "echo start >> \"$WITNESS\"; sleep 1; echo end >> \"$WITNESS\"", witness);
        String runId = Fixture.runsOf(p, job.id()).getFirst().runId();
        ExecutorPool pool = p.startExecutor("ex-draining", tmp.resolve("a"), 1);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !Fixture.lines(witness).isEmpty());

        pool.close();

        Run run = Fixture.run(p, job.id(), runId);
        assertThat(run.state()).isEqualTo(RunState.SUCCEEDED);
        assertThat(run.attempt()).isEqualTo(1);
        assertThat(Fixture.lines(witness)).containsExactly("start", "end");
        assertThat(Fixture.queueCounts(p).total()).isZero();
    }
}
