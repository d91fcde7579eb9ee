package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.core.Punctual;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Secrets are write-only: the binary gets them, nothing the API returns holds them (job, listing, errors), no index
 * projects them, a PUT that leaves them out keeps them, and a deleted job keeps no value.
 */
class SecretsTest {
    private static final ScheduleSpec NOW = ScheduleSpec.now();
    private static final String VALUE = "hunter2-" + System.nanoTime();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private final Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), Clock.systemUTC());
    private ExecutorPool pool;

    @AfterEach
    void stop() {
        if (pool != null) {
            pool.close();
        }
    }

    private static JobRequest request(String binaryId, ScheduleSpec schedule, Map<String, String> secrets) {
        return Fixture.request("with secrets", binaryId, Map.of("PLAIN", "visible"), schedule, null, secrets, null);
    }

    @Test
    void theBinaryGetsThemAndNothingElseShowsThem() throws Exception {
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("echo \"secret=$DB_PASSWORD plain=$PLAIN\""));
        pool = p.startExecutor("ex-s", tmp.resolve("ex"), 1);
        JobView job = p.jobService.create(OWNER, request(binaryId, NOW, Map.of("DB_PASSWORD", VALUE)));
        assertThat(job.secrets()).containsExactly("DB_PASSWORD");

        Run run = await().atMost(Duration.ofSeconds(30))
                .until(() -> Fixture.runsOf(p, job.id()).get(0), r -> r.state() == RunState.SUCCEEDED);
        assertThat(p.jobService.log(OWNER, job.id(), run.runId())).contains("secret=" + VALUE + " plain=visible");

        assertThat(JSON.writeValueAsString(p.jobService.get(OWNER, job.id())))
                .doesNotContain(VALUE)
                .contains("DB_PASSWORD");
        assertThat(JSON.writeValueAsString(p.jobService.list(OWNER, 100, null))).doesNotContain(VALUE);
        assertThat(p.jobs.get(job.id()).orElseThrow().toString()).doesNotContain(VALUE);
        // The owner index projects ALL of every job item: the values must not be in any of them.
        var indexed = Fixture.dynamo()
                .query(q -> q.tableName(p.resources.jobs().name())
                        .indexName(Resources.JOBS_BY_OWNER)
                        .keyConditionExpression("#o = :o")
                        .expressionAttributeNames(Map.of("#o", Resources.OWNER))
                        .expressionAttributeValues(Map.of(":o", AttributeValue.fromS(OWNER))))
                .items();
        assertThat(indexed).isNotEmpty();
        assertThat(indexed.toString()).doesNotContain(VALUE);
    }

    @Test
    void aPutWithoutSecretsKeepsThemAnEmptyMapClearsThemAndADeleteLeavesNoValue() {
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        ScheduleSpec later = Fixture.once(java.time.Instant.now().plus(Duration.ofDays(1)));
        JobView v1 = p.jobService.create(OWNER, request(binaryId, later, Map.of("TOKEN", VALUE)));
        JobView v2 = p.jobService.update(OWNER, v1.id(), "\"1\"", request(binaryId, later, null));
        assertThat(v2.secrets()).containsExactly("TOKEN");
        assertThat(v2.version()).as("the same definition: nothing changed").isEqualTo(1);
        assertThat(p.jobs.secrets(v1.id())).isEqualTo(Map.of("TOKEN", VALUE));

        JobView v3 = p.jobService.update(OWNER, v1.id(), "\"1\"", request(binaryId, later, Map.of("OTHER", "x")));
        assertThat(v3.secrets()).containsExactly("OTHER");
        assertThat(p.jobs.secrets(v1.id())).isEqualTo(Map.of("OTHER", "x"));

        p.deletions.delete(OWNER, v1.id());
        assertThat(p.jobs.secrets(v1.id())).isEmpty();
        assertThat(p.jobService.get(OWNER, v1.id()).secrets()).containsExactly("OTHER");
    }

    @Test
    void secretsFollowTheRulesOfEnvAndAreRefusedWithTheirName() {
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        int jobsBefore = p.jobService.list(OWNER, 100, null).items().size();
        assertThatThrownBy(() -> p.jobService.create(OWNER, request(binaryId, NOW, Map.of("LD_PRELOAD", "/x.so"))))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors().get(0).field()).isEqualTo("secrets.LD_PRELOAD"));
        assertThatThrownBy(() -> p.jobService.create(OWNER, request(binaryId, NOW, Map.of("PLAIN", "again"))))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors().get(0).field()).isEqualTo("secrets.PLAIN"));
        Map<String, String> many = IntStream.range(0, 65).boxed().collect(Collectors.toMap(i -> "S" + i, i -> "v"));
        assertThatThrownBy(() -> p.jobService.create(OWNER, request(binaryId, NOW, many)))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors().get(0).field()).isEqualTo("secrets"));
        Map<String, String> huge = new HashMap<>();
        for (int i = 0; i < 64; i++) {
            huge.put("S" + i, "é".repeat(4096));
        }
        assertThatThrownBy(() -> p.jobService.create(OWNER, request(binaryId, NOW, huge)))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Rejection.TOO_LARGE);
                    assertThat(e.errors().get(0).field()).isEqualTo("secrets");
                    assertThat(e.getMessage()).doesNotContain("é".repeat(10));
                });
        assertThat(p.jobService.list(OWNER, 100, null).items()).hasSize(jobsBefore);
    }
}
