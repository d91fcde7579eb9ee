package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An executor that stops between its claim and the binary's start has not run the attempt it was granted: the
 * attempt is given back, and a run whose last attempt that was still runs (found by the fault suite, where a kill -9
 * right after a claim ended a run DEAD at an attempt that never started).
 */
class UnlaunchedAttemptTest {
    @TempDir
    Path dir;

    @Test
    void theLastAttemptsExecutorDiedBeforeTheStartAndTheRunStillRuns() throws Exception {
        Punctual p = Fixture.stack(Fixture.shortLease(Duration.ofSeconds(3)), Clock.systemUTC());
        Path witness = Fixture.witness(dir);
        // One attempt only.
        var job = Fixture.attemptWitnessJob(p, "unlaunched", witness, 1);
        String runId = Fixture.latestRun(p, job.id()).runId();
        // A ghost executor claims that attempt and stops before it launches anything: its lease runs out.
        assertThat(Fixture.claim(p, job.id(), runId, "ghost", Instant.now(), Duration.ofSeconds(2))
                        .won())
                .isTrue();

        try (ExecutorPool pool = p.startExecutor("survivor", dir.resolve("exec"), 1)) {
            Run run = await().atMost(Duration.ofSeconds(45))
                    .until(() -> Fixture.run(p, job.id(), runId), r -> r.state().terminal());
            assertThat(run.state()).as("error: %s", run.error()).isEqualTo(RunState.SUCCEEDED);
            assertThat(run.attempt()).isEqualTo(2);
            assertThat(run.maxAttempts())
                    .as("the ghost's attempt was given back")
                    .isEqualTo(2);
            assertThat(Fixture.lines(witness)).containsExactly("ran 2");
        }
    }

    @Test
    void anAttemptIsGivenBackAtMostThreeTimesThenTheRunEndsDead() throws Exception {
        Punctual p = Fixture.stack(Fixture.shortLease(Duration.ofSeconds(3)), Clock.systemUTC());
        Path witness = Fixture.witness(dir);
        var job = Fixture.attemptWitnessJob(p, "given-back", witness, 1);
        Run pending = Fixture.latestRun(p, job.id());
        String runId = pending.runId();
        // Ghost executors, each claiming the run and stopping before its launch (a binary that brings its executor
        // down within the launch's delay, every time): each lease of 1 ms runs out, and the attempt is given back.
        Instant t = pending.scheduledAt();
        for (int i = 1; i <= RunRepository.MAX_GIVE_BACKS + 1; i++) {
            Instant at = t.plusMillis(10L * i);
            assertThat(Fixture.claim(p, job.id(), runId, "ghost-" + i, at, Duration.ofMillis(1))
                            .won())
                    .isTrue();
            if (i <= RunRepository.MAX_GIVE_BACKS) {
                Run seen = Fixture.run(p, job.id(), runId);
                assertThat(p.runs.apply(Change.of(Transition.GIVE_BACK, seen, at.plusMillis(5))
                                        .withError("given back"))
                                .won())
                        .as("give-back %d", i)
                        .isTrue();
            }
        }
        Run last = Fixture.run(p, job.id(), runId);
        assertThat(last.attempt()).isEqualTo(RunRepository.MAX_GIVE_BACKS + 1);
        assertThat(last.maxAttempts()).isEqualTo(RunRepository.MAX_GIVE_BACKS + 1);
        await().until(() -> Instant.now().isAfter(t.plusSeconds(1)));

        // The next executor finds the last ghost's attempt unlaunched too, but no give-back is left: DEAD.
        try (ExecutorPool pool = p.startExecutor("survivor", dir.resolve("exec"), 1)) {
            Run run = await().atMost(Duration.ofSeconds(45))
                    .until(() -> Fixture.run(p, job.id(), runId), r -> r.state().terminal());
            assertThat(run.state()).isEqualTo(RunState.DEAD);
            assertThat(run.error()).contains("attempt 4 of 4 ended without an outcome");
            assertThat(Fixture.lines(witness)).isEmpty();
        }
    }
}
