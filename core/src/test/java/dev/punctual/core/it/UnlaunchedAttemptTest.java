package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
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
}
