package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.core.Punctual;
import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.job.Job;
import dev.punctual.core.notify.EventBusNotices;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.EventBridgeReceiver;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import dev.punctual.core.time.TimeBuckets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;

/**
 * Run outcomes reach the bus from where they are written: the executor (success, a failed attempt, the run dead) and
 * the sweeper (an occurrence its job's catch-up policy leaves out), each once, with the job's tenant, name and labels.
 */
class RunNoticesTest {
    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    @TempDir
    Path tmp;

    private final EventBridgeReceiver bus = new EventBridgeReceiver();
    private final EventBridgeClient client = AwsClients.eventBridge(TestStack.target(), bus.endpoint());
    private final EventBusNotices notices = new EventBusNotices(client, "runs", "punctual");

    @AfterEach
    void close() throws InterruptedException {
        notices.close(Duration.ofSeconds(5));
        client.close();
        bus.close();
    }

    private List<JsonNode> noticesOf(String jobId) {
        return bus.details().stream()
                .filter(d -> d.get("jobId").asText().equals(jobId))
                .toList();
    }

    @Test
    void theExecutorPublishesEachOutcomeOnceWithItsJobsTenantNameAndLabels() {
        Punctual p = TestStack.create(Fixture.fastRetries().build(), Clock.systemUTC(), notices);
        executors.start(p, "ex-1", tmp.resolve("ex-1"));

        JobView ok = Fixture.createJob(
                p, "nightly export", "echo done", ScheduleSpec.now(), j -> j.labels(Map.of("team", "data")));
        JobView failing = Fixture.createJob(p, "flaky", "exit 3", ScheduleSpec.now(), j -> j.maxAttempts(2));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> noticesOf(failing.id()).size() == 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> noticesOf(ok.id()).size() == 1);

        JsonNode success = noticesOf(ok.id()).get(0);
        assertThat(success.get("state").asText()).isEqualTo("SUCCEEDED");
        assertThat(success.get("final").asBoolean()).isTrue();
        assertThat(success.get("tenant").asText()).isEqualTo(OWNER);
        assertThat(success.get("jobName").asText()).isEqualTo("nightly export");
        assertThat(success.get("labels").get("team").asText()).isEqualTo("data");
        assertThat(success.get("attempt").asInt()).isEqualTo(1);
        assertThat(success.get("exitCode").asInt()).isZero();
        assertThat(success.get("by").asText()).isEqualTo("ex-1");
        assertThat(success.get("runId").asText())
                .isEqualTo(Fixture.runsOf(p, ok.id()).get(0).runId());

        List<JsonNode> failed = noticesOf(failing.id());
        assertThat(failed.stream()
                        .map(d ->
                                d.get("state").asText() + "/" + d.get("attempt").asInt()))
                .containsExactlyInAnyOrder("FAILED/1", "DEAD/2");
        assertThat(failed).allSatisfy(d -> {
            assertThat(d.get("exitCode").asInt()).isEqualTo(3);
            assertThat(d.get("error").asText()).isEqualTo("exited with code 3");
            assertThat(d.get("final").asBoolean())
                    .isEqualTo(d.get("state").asText().equals("DEAD"));
        });
    }

    @Test
    void theSweeperPublishesTheOccurrenceACatchUpPolicyLeavesOut() throws InterruptedException {
        Instant t0 = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
        SettableClock clock = new SettableClock(t0);
        Punctual p = TestStack.create(TestStack.isolatedSettings().build(), clock, notices);
        assertThat(p.watermarks.advance(TimeBuckets.bucketOf(t0), t0)).isTrue();
        Job job = Fixture.insertJob(
                p,
                Fixture.interval(Duration.ofMinutes(1), t0.plus(Duration.ofMinutes(1))),
                t0.plus(Duration.ofMinutes(1)),
                t0,
                3,
                new FiringPolicy(null, CatchUp.DEFAULT.withMode(CatchUp.Mode.SKIP), Overlap.ALLOW, null));
        clock.set(t0.plus(Duration.ofMinutes(30)).plusSeconds(30));

        p.sweeper.sweep();
        assertThat(p.notices.flush(Duration.ofSeconds(10))).isTrue();

        List<JsonNode> published = noticesOf(job.id());
        assertThat(published).hasSize(1);
        JsonNode skipped = published.get(0);
        assertThat(skipped.get("state").asText()).isEqualTo("SKIPPED");
        assertThat(skipped.get("runId").asText()).isEqualTo(RunIds.forOccurrence(t0.plus(Duration.ofMinutes(1))));
        assertThat(skipped.get("error").asText()).contains("catchUp skip");
        assertThat(skipped.get("by").asText()).isEqualTo("sweeper");
        assertThat(skipped.get("tenant").asText()).isEqualTo(job.owner());
        // The runs it sent are not outcomes: nothing else was published.
        assertThat(bus.accepted()).hasSize(1);
    }
}
