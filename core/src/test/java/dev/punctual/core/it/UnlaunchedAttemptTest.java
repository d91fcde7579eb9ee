package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.testing.TestStack;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
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
        Settings settings = TestStack.isolatedSettings()
                .lease(Duration.ofSeconds(3))
                .heartbeat(Duration.ofSeconds(1))
                .build();
        Punctual p = Fixture.stack(settings, Clock.systemUTC());
        Path witness = Fixture.witness(dir);
        String bin =
                Fixture.uploadBinary(p, "local", Fixture.script("echo \"ran $SCHEDULER_ATTEMPT\" >> \"$WITNESS\""));
        // One attempt only.
        var job = p.jobService.create(
                "local",
                JobRequest.builder("unlaunched", bin, ScheduleSpec.now())
                        .args(List.of())
                        .env(Map.of("WITNESS", witness.toString()))
                        .timeoutSeconds(60)
                        .maxAttempts(1)
                        .build());
        String runId = p.runs.listForJob(job.id(), 1, null).items().get(0).runId();
        // A ghost executor claims that attempt and stops before it launches anything: its lease runs out.
        Instant now = Instant.now();
        assertThat(p.tx.write(List.of(
                                p.jobs.conditionRunnable(job.id()),
                                p.runs.write(Change.of(Transition.CLAIM, job.id(), runId, now)
                                        .withLease("ghost", now.plusSeconds(2)))))
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
