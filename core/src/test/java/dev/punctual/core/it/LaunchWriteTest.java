package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The binary's start is written once: by the launch, a moment after the start, if the binary still runs then, or
 * with the outcome of a binary that ended sooner (one write a run after the claim instead of two). Counted on the
 * executor's own DynamoDB client, against the emulator.
 */
class LaunchWriteTest {
    @TempDir
    Path dir;

    private final Settings settings = TestStack.isolatedSettings().build();
    private final Punctual p = Fixture.stack(settings, Clock.systemUTC());
    /** The update expressions of the executor's writes of runs, in order. */
    private final List<String> runWrites = new CopyOnWriteArrayList<>();

    private Punctual executor() {
        String runs = p.resources.runs().name();
        return Fixture.executorSide(
                settings,
                Fixture.dynamoWith(new ExecutionInterceptor() {
                    @Override
                    public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                        if (c.request() instanceof UpdateItemRequest u
                                && u.tableName().equals(runs)) {
                            runWrites.add(u.updateExpression());
                        }
                    }
                }),
                Fixture.s3());
    }

    private Run awaitRun(String jobId, java.util.function.Predicate<Run> until) {
        return await().atMost(Duration.ofSeconds(30))
                .until(() -> Fixture.latestRun(p, jobId), r -> r != null && until.test(r));
    }

    @Test
    void aRunThatEndsBeforeItsLaunchIsDueHasItsStartWrittenWithItsOutcome() throws Exception {
        JobView job = Fixture.createJob(p, "short", "exit 0", ScheduleSpec.now(), j -> j.maxAttempts(1));
        try (ExecutorPool pool = executor().startExecutor("ex-short", dir.resolve("ex"), 1)) {
            Run run = awaitRun(job.id(), r -> r.state().terminal());
            assertThat(run.state()).as("error: %s", run.error()).isEqualTo(RunState.SUCCEEDED);
            assertThat(run.startedAt()).isNotNull().isEqualTo(run.launchedAt());
            assertThat(run.startedAt()).isAfterOrEqualTo(run.scheduledAt()).isBeforeOrEqualTo(run.finishedAt());
            assertThat(runWrites).as("the claim and the outcome").hasSize(2);
            assertThat(runWrites.get(0)).contains("#attempt = #attempt +");
            assertThat(runWrites.get(1)).contains("#finishedAt").contains("#launchedAt");
        }
    }

    @Test
    void aRunStillRunningHasItsLaunchWrittenWhileItRuns() throws Exception {
        Path shared = Fixture.shared(dir);
        Path go = shared.resolve("go");
        JobView job = Fixture.createJob(
                p,
                "long",
                "while [ ! -e \"$GO\" ]; do sleep 0.05; done",
                ScheduleSpec.now(),
                j -> j.maxAttempts(1).env(Map.of("GO", go.toString())));
        try (ExecutorPool pool = executor().startExecutor("ex-long", dir.resolve("ex"), 1)) {
            Run running = awaitRun(job.id(), r -> r.state() == RunState.RUNNING && r.launchedAt() != null);
            assertThat(running.startedAt()).isEqualTo(running.launchedAt());
            Files.createFile(go);
            Run run = awaitRun(job.id(), r -> r.state().terminal());
            assertThat(run.state()).as("error: %s", run.error()).isEqualTo(RunState.SUCCEEDED);
            assertThat(run.startedAt()).as("the launch's, kept").isEqualTo(running.startedAt());
            assertThat(runWrites).as("the claim, the launch and the outcome").hasSize(3);
            assertThat(runWrites.get(1)).contains("#launchedAt").doesNotContain("#finishedAt");
            assertThat(runWrites.get(2)).contains("#finishedAt").doesNotContain("#launchedAt");
        }
    }
}
