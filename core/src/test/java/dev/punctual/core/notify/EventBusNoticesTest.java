package dev.punctual.core.notify;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.job.Expectation;
import dev.punctual.core.run.RunState;
import dev.punctual.core.testing.EventBridgeReceiver;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;

/** The bus publisher, through the real SDK client, against an endpoint that answers PutEvents as EventBridge does. */
class EventBusNoticesTest {
    private static final Instant AT = Instant.parse("2026-11-24T10:00:00.250Z");

    private final EventBridgeReceiver bus = new EventBridgeReceiver();
    private final EventBridgeClient client =
            AwsClients.eventBridge(AwsClients.Target.emulators(null, null, null), bus.endpoint());
    private final EventBusNotices notices = new EventBusNotices(client, "runs-bus", "punctual");

    @AfterEach
    void close() throws InterruptedException {
        notices.close(Duration.ofSeconds(5));
        client.close();
        bus.close();
    }

    private static RunNotice notice(int i, RunState state) {
        return new RunNotice(
                AT,
                "tenant-a",
                "job_" + i,
                "nightly " + i,
                Map.of("team", "data"),
                "20261124T100000Z",
                AT.minusMillis(250),
                2,
                state,
                state == RunState.SUCCEEDED ? 0 : 3,
                state == RunState.SUCCEEDED ? null : "exited with code 3",
                "ex-1",
                null);
    }

    @Test
    void everyNoticeGoesOutOnceTenAtMostPerCallWithTheDocumentedFields() throws InterruptedException {
        IntStream.range(0, 25).forEach(i -> notices.publish(notice(i, RunState.SUCCEEDED)));

        assertThat(notices.flush(Duration.ofSeconds(20))).isTrue();

        List<JsonNode> entries = bus.accepted();
        assertThat(entries).hasSize(25);
        assertThat(bus.calls()).isBetween(3, 25);
        JsonNode first = entries.get(0);
        assertThat(first.get("EventBusName").asText()).isEqualTo("runs-bus");
        assertThat(first.get("Source").asText()).isEqualTo("punctual");
        assertThat(first.get("DetailType").asText()).isEqualTo("Punctual Run State Change");
        assertThat(bus.details().stream().map(d -> d.get("jobId").asText()))
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, 25).mapToObj(i -> "job_" + i).toList());
        JsonNode d = bus.details().stream()
                .filter(x -> x.get("jobId").asText().equals("job_7"))
                .findFirst()
                .orElseThrow();
        assertThat(d.get("version").asText()).isEqualTo("1");
        assertThat(d.get("id").asText()).isEqualTo("job_7/20261124T100000Z/2/SUCCEEDED");
        assertThat(d.get("at").asText()).isEqualTo("2026-11-24T10:00:00.250Z");
        assertThat(d.get("tenant").asText()).isEqualTo("tenant-a");
        assertThat(d.get("jobName").asText()).isEqualTo("nightly 7");
        assertThat(d.get("labels").get("team").asText()).isEqualTo("data");
        assertThat(d.get("scheduledAt").asText()).isEqualTo("2026-11-24T10:00:00Z");
        assertThat(d.get("attempt").asInt()).isEqualTo(2);
        assertThat(d.get("state").asText()).isEqualTo("SUCCEEDED");
        assertThat(d.get("final").asBoolean()).isTrue();
        assertThat(d.get("exitCode").asInt()).isZero();
        assertThat(d.has("error")).isFalse();
        assertThat(d.get("by").asText()).isEqualTo("ex-1");
    }

    @Test
    void entriesTheBusRefusesAreSentAgainAndNoneTwice() throws InterruptedException {
        bus.refuseEntries(3);
        IntStream.range(0, 12).forEach(i -> notices.publish(notice(i, RunState.FAILED)));

        assertThat(notices.flush(Duration.ofSeconds(20))).isTrue();

        assertThat(bus.details().stream().map(d -> d.get("jobId").asText()))
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, 12).mapToObj(i -> "job_" + i).toList());
        assertThat(bus.details()).allSatisfy(d -> {
            assertThat(d.get("state").asText()).isEqualTo("FAILED");
            assertThat(d.get("final").asBoolean()).isFalse();
            assertThat(d.get("error").asText()).isEqualTo("exited with code 3");
        });
    }

    @Test
    void aBusThatKeepsFailingIsGivenUpOnAfterItsTriesAndFlushStillEnds() throws InterruptedException {
        bus.failCalls(Integer.MAX_VALUE);
        notices.publish(notice(1, RunState.DEAD));

        // Settled (logged as not published), not waited on forever: a Lambda must be able to return.
        assertThat(notices.flush(Duration.ofSeconds(30))).isTrue();

        assertThat(bus.accepted()).isEmpty();
        assertThat(bus.calls()).isGreaterThanOrEqualTo(EventBusNotices.TRIES);
    }

    @Test
    void anOverdueJobGoesOutWithItsOwnDetailTypeAndWindow() throws InterruptedException {
        Instant since = AT.minus(Duration.ofHours(25));
        notices.publish(new JobOverdue(
                AT,
                "tenant-a",
                "job_1",
                "nightly",
                Map.of("team", "data"),
                new Expectation(Duration.ofHours(25), null),
                since,
                AT.minusSeconds(40),
                null));

        assertThat(notices.flush(Duration.ofSeconds(10))).isTrue();

        assertThat(bus.accepted())
                .singleElement()
                .satisfies(e -> assertThat(e.get("DetailType").asText()).isEqualTo("Punctual Job Overdue"));
        JsonNode d = bus.details().get(0);
        assertThat(d.get("id").asText()).isEqualTo("job_1/overdue/2026-11-24T09:59:20.250Z");
        assertThat(d.get("state").asText()).isEqualTo("OVERDUE");
        assertThat(d.get("expect").get("every").asText()).isEqualTo("PT25H");
        assertThat(d.get("since").asText()).isEqualTo(since.toString());
        assertThat(d.get("deadline").asText()).isEqualTo("2026-11-24T09:59:20.250Z");
        assertThat(d.get("labels").get("team").asText()).isEqualTo("data");
    }
}
