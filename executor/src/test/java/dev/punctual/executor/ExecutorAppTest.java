package dev.punctual.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.BinaryRequest;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.wiring.PunctualConfig;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** The executor application as deployed: it boots, polls the queue and runs what arrives. */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class ExecutorAppTest {
    @Inject
    Punctual punctual;

    @Inject
    S3Client s3;

    @Inject
    PunctualConfig config;

    @Test
    void runsAJobSentToItsQueueAndRecordsTheOutcome() throws Exception {
        byte[] script = "#!/bin/sh\necho \"ran $SCHEDULER_RUN_ID attempt $SCHEDULER_ATTEMPT\"\nexit 0\n"
                .getBytes(StandardCharsets.UTF_8);
        String sha =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(script));
        var binary = punctual.binaries.register("local", new BinaryRequest("ok.sh", sha, (long) script.length));
        s3.putObject(
                p -> p.bucket(punctual.settings.deployment().bucket()).key(ArtifactStore.binaryKey("local", sha)),
                RequestBody.fromBytes(script));

        JobView job = punctual.jobService.create(
                "local",
                JobRequest.builder("app-test", binary.id(), ScheduleSpec.now())
                        .args(List.of())
                        .env(Map.of())
                        .timeoutSeconds(30)
                        .maxAttempts(1)
                        .build());

        await().atMost(Duration.ofSeconds(30)).until(() -> state(job.id()) == RunState.SUCCEEDED);
        Run run = punctual.runs.listForJob(job.id(), 1, null).items().get(0);
        assertThat(run.exitCode()).isZero();
        assertThat(run.attempt()).isEqualTo(1);
        assertThat(punctual.jobService.log("local", job.id(), run.runId()))
                .contains("ran " + run.runId() + " attempt 1");
    }

    @Test
    void touchesItsHealthFileWhileItsPoolTakesRuns() throws Exception {
        Path file = ExecutorLifecycle.workDir(config).resolve(ExecutorLifecycle.HEALTH_FILE);
        Instant asked = Instant.now();
        // Touched again after this instant: the beat goes on (the ECS health check reads the file's age).
        await().atMost(ExecutorLifecycle.HEALTH_BEAT.multipliedBy(3))
                .until(() -> Files.exists(file)
                        && !Files.getLastModifiedTime(file).toInstant().isBefore(asked.minusSeconds(1)));
    }

    private RunState state(String jobId) {
        var items = punctual.runs.listForJob(jobId, 1, null).items();
        return items.isEmpty() ? null : items.get(0).state();
    }
}
