package dev.punctual.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole system as a newcomer runs it: the packaged launcher in its own process, a native binary uploaded
 * through the presigned URL, jobs scheduled and observed only through the HTTP API.
 */
class LocalSystemIT {
    private static LocalSystem system;
    private static String binaryId;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        // Short retry backoff so the three-attempt test is quick; everything else runs with its defaults.
        system = new LocalSystem("-Dpunctual.retry-base=PT1S");
        binaryId = system.upload(LocalSystem.binary(dir));
    }

    @AfterAll
    static void stop() throws Exception {
        if (system != null) {
            system.close();
        }
    }

    @Test
    void aOnceJobRunsExactlyOnceOnTimeWithItsOutputInTheLog() throws Exception {
        Instant at = Instant.now().plusSeconds(3).truncatedTo(ChronoUnit.MILLIS);
        JsonNode job = system.post("/v1/jobs", Map.of("name", "once", "binaryId", binaryId,
                "schedule", Map.of("type", "once", "at", at.toString())), 201);
        String id = job.get("id").asText();
        assertThat(job.get("nextRunAt").asText()).isEqualTo(at.toString());

        JsonNode run = await().atMost(Duration.ofSeconds(30)).until(() -> latestRun(id),
                r -> r != null && "SUCCEEDED".equals(r.get("state").asText()));
        assertThat(system.get("/v1/jobs/" + id + "/runs").get("items")).hasSize(1);
        assertThat(run.get("attempt").asInt()).isEqualTo(1);
        assertThat(run.get("exitCode").asInt()).isZero();
        Duration lateness = LocalSystem.between(run, "scheduledAt", "startedAt");
        System.out.println("[e2e] once job: scheduledAt " + run.get("scheduledAt").asText() + ", startedAt "
                + run.get("startedAt").asText() + ", lateness " + lateness.toMillis() + " ms");
        assertThat(lateness).isBetween(Duration.ZERO, Duration.ofSeconds(1));
        String log = system.text("/v1/jobs/" + id + "/runs/" + run.get("runId").asText() + "/log");
        assertThat(log).contains("hello from run " + run.get("runId").asText() + " attempt 1")
                .contains("stderr is captured too");
    }

    @Test
    void aFailingBinaryIsRetriedAndEndsDeadAfterExactlyMaxAttempts() throws Exception {
        JsonNode job = system.post("/v1/jobs", Map.of("name", "exit-3", "binaryId", binaryId, "args", List.of("3"),
                "schedule", Map.of("type", "now"), "maxAttempts", 3), 201);
        String id = job.get("id").asText();
        JsonNode run = await().atMost(Duration.ofSeconds(60)).until(() -> latestRun(id),
                r -> r != null && "DEAD".equals(r.get("state").asText()));
        assertThat(run.get("attempt").asInt()).isEqualTo(3);
        assertThat(run.get("exitCode").asInt()).isEqualTo(3);
        assertThat(run.get("error").asText()).contains("exited with code 3");
        assertThat(system.text("/v1/jobs/" + id + "/runs/" + run.get("runId").asText() + "/log"))
                .contains("attempt 3");
    }

    @Test
    void anIntervalJobRunsRepeatedlyAndNoRunStartsAfterDelete() throws Exception {
        JsonNode job = system.post("/v1/jobs", Map.of("name", "every-5s", "binaryId", binaryId,
                "schedule", Map.of("type", "interval", "every", "PT5S")), 201);
        String id = job.get("id").asText();
        await().atMost(Duration.ofSeconds(40)).until(() -> started(id) >= 2);
        assertThat(system.delete("/v1/jobs/" + id)).isEqualTo(204);
        long atDelete = started(id);
        // Occurrences already queued (with their delays) must fail their claim: nothing more starts.
        await().during(Duration.ofSeconds(12)).atMost(Duration.ofSeconds(20))
                .until(() -> started(id) == atDelete);
        assertThat(system.get("/v1/jobs/" + id).get("state").asText()).isEqualTo("DELETED");
    }

    private static JsonNode latestRun(String jobId) throws Exception {
        JsonNode items = system.get("/v1/jobs/" + jobId + "/runs?limit=1").get("items");
        return items.isEmpty() ? null : items.get(0);
    }

    private static long started(String jobId) throws Exception {
        long n = 0;
        for (JsonNode r : system.get("/v1/jobs/" + jobId + "/runs?limit=100").get("items")) {
            if (r.get("attempt").asInt() > 0) {
                n++;
            }
        }
        return n;
    }
}
