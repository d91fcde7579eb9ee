package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.Provisioner;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.BinaryRequest;
import dev.punctual.core.service.BinaryView;
import dev.punctual.core.service.JobRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * The end-to-end scenario on LocalStack (DynamoDB, SQS, S3 in a container): provision from the code's resource
 * definition, upload through the presigned URL, schedule "now", run it on an executor, read its log. Needs
 * Docker, so it is skipped (and reported as skipped) where there is none; the same path is tested on the
 * embedded emulators by the emulators and local modules. LOCALSTACK_AUTH_TOKEN is passed through when set.
 */
@Testcontainers(disabledWithoutDocker = true)
class LocalStackScenarioTest {
    @Container
    static final LocalStackContainer LOCALSTACK = new LocalStackContainer(
                    DockerImageName.parse("localstack/localstack:4.4"))
            .withServices(
                    LocalStackContainer.Service.DYNAMODB,
                    LocalStackContainer.Service.SQS,
                    LocalStackContainer.Service.S3)
            .withEnv(
                    System.getenv("LOCALSTACK_AUTH_TOKEN") == null
                            ? Map.of()
                            : Map.of("LOCALSTACK_AUTH_TOKEN", System.getenv("LOCALSTACK_AUTH_TOKEN")));

    @TempDir
    Path work;

    @Test
    void aJobRunsEndToEndOnLocalStack() throws Exception {
        URI endpoint = LOCALSTACK.getEndpoint();
        var target = new AwsClients.Target(
                endpoint,
                endpoint,
                endpoint,
                Region.of(LOCALSTACK.getRegion()),
                StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(LOCALSTACK.getAccessKey(), LOCALSTACK.getSecretKey())));
        Settings settings = Settings.builder().retryBase(Duration.ofSeconds(1)).build();
        var dynamo = AwsClients.dynamo(target);
        var sqs = AwsClients.sqs(target);
        var s3 = AwsClients.s3(target);
        Provisioner.provision(target, new dev.punctual.core.infra.Resources(settings));
        Punctual p = new Punctual(dynamo, sqs, s3, AwsClients.presigner(target), settings, Clock.systemUTC());

        byte[] script = "#!/bin/sh\necho \"on localstack: $SCHEDULER_RUN_ID\"\n".getBytes(StandardCharsets.UTF_8);
        String sha =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(script));
        BinaryView b = p.binaries.register("local", new BinaryRequest("ls.sh", sha, (long) script.length));
        HttpRequest.Builder put =
                HttpRequest.newBuilder(URI.create(b.uploadUrl())).PUT(HttpRequest.BodyPublishers.ofByteArray(script));
        b.uploadHeaders().forEach((k, v) -> {
            if (!k.equalsIgnoreCase("content-length")) {
                put.header(k, v);
            }
        });
        assertThat(HttpClient.newHttpClient()
                        .send(put.build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode())
                .isEqualTo(200);

        var job = p.jobService.create(
                "local",
                JobRequest.builder("localstack", b.id(), ScheduleSpec.now())
                        .args(List.of())
                        .env(Map.of())
                        .timeoutSeconds(60)
                        .maxAttempts(2)
                        .build());
        try (ExecutorPool pool = p.startExecutor("ls-1", work, 1)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                var runs = p.runs.listForJob(job.id(), 1, null).items();
                return !runs.isEmpty() && runs.get(0).state() == RunState.SUCCEEDED;
            });
        }
        var run = p.runs.listForJob(job.id(), 1, null).items().get(0);
        assertThat(p.jobService.log("local", job.id(), run.runId())).contains("on localstack: " + run.runId());
    }
}
