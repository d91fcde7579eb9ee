package dev.punctual.sweeper;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;

import dev.punctual.core.Punctual;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The sweeper through its Lambda handler: each POST to the mock event server is one EventBridge invocation. The
 * application's clock stands still at an instant this test chooses, so what a sweep's window holds is exact.
 */
@QuarkusTest
@TestProfile(SweepHandlerTest.StoppedClock.class)
@WithTestResource(EmulatorsTestResource.class)
class SweepHandlerTest {
    /** Mid-minute, mid-month: no bucket or date edge near it. */
    static final Instant NOW = Instant.parse("2026-03-10T08:00:07Z");

    public static class StoppedClock implements QuarkusTestProfile {
        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(ClockAtNow.class);
        }
    }

    /** In place of wiring's system clock, for this profile only. */
    @Alternative
    @Singleton
    public static class ClockAtNow {
        @Produces
        @Singleton
        Clock clock() {
            return Clock.fixed(NOW, ZoneOffset.UTC);
        }
    }

    private static final String EVENT = """
            {"version":"0","id":"e1","detail-type":"Scheduled Event","source":"aws.events",
             "account":"000000000000","time":"2026-11-22T10:00:00Z","region":"us-east-1",
             "resources":["arn:aws:events:us-east-1:000000000000:rule/punctual-sweep"],"detail":{}}""";

    @Inject
    Punctual punctual;

    @Inject
    Clock clock;

    @Test
    void queuesEveryOccurrenceInsideTheWindowAndLeavesOnePendingRun() {
        // A 10-second interval job written straight to the table (as if created long ago), first run due in 15 s.
        assertThat(clock.instant()).as("the application's clock is this test's").isEqualTo(NOW);
        Instant first = NOW.plusSeconds(15);
        Schedule.Interval schedule = new Schedule.Interval(Duration.ofSeconds(10), first, null);
        Run run = Run.scheduled("job_sweeptestsweeptest00", RunIds.forOccurrence(first), "local", first, 3, NOW);
        Job job = Job.builder()
                .id(run.jobId())
                .owner("local")
                .name("tick")
                .binaryId("bin_x")
                .binarySha256("0".repeat(64))
                .args(List.of())
                .env(Map.of())
                .schedule(schedule.spec())
                .timeoutSeconds(60)
                .maxAttempts(3)
                .state(JobState.ACTIVE)
                .version(1)
                .createdAt(NOW)
                .updatedAt(NOW)
                .pendingRunId(run.runId())
                .nextRunAt(first)
                .build();
        assertThat(punctual.tx
                        .write(List.of(
                                punctual.jobs.insert(job),
                                punctual.runs.create(Change.of(Transition.SCHEDULE, run, run.createdAt()))))
                        .won())
                .isTrue();

        int sent = sweep();
        // Every occurrence up to now + lookahead (2 min) is sent: +15 s, +25 s, … +115 s; the one after is pending.
        Duration lookahead = punctual.settings.sweep().lookahead();
        long inWindow = (lookahead.toSeconds() - 15) / 10 + 1;
        assertThat(sent).isEqualTo(inWindow).isEqualTo(11);

        Job after = punctual.jobs.get(job.id()).orElseThrow();
        Run pending = punctual.runs.get(job.id(), after.pendingRunId()).orElseThrow();
        assertThat(pending.state()).isEqualTo(RunState.SCHEDULED);
        assertThat(pending.scheduledAt()).isEqualTo(first.plusSeconds(10 * inWindow));
        assertThat(pending.scheduledAt()).isAfter(NOW.plus(lookahead));
        var page = punctual.runs.listForJob(job.id(), 100, null).items();
        assertThat(page.stream().filter(r -> r.state() == RunState.QUEUED).count())
                .isEqualTo(sent);
        assertThat(page.stream().filter(r -> r.state() == RunState.SCHEDULED).count())
                .isEqualTo(1);

        // A second (duplicate) invocation at the same instant sends nothing: what it finds is QUEUED already, and
        // the pending run is past its window.
        assertThat(sweep()).isZero();
        var after2 = punctual.runs.listForJob(job.id(), 100, null).items();
        assertThat(after2.stream().filter(r -> r.state() == RunState.QUEUED).count())
                .isEqualTo(sent);
        assertThat(after2.stream().filter(r -> r.state() == RunState.SCHEDULED).count())
                .isEqualTo(1);
    }

    /** One scheduled invocation of the sweeper; it must fail nothing. Returns how many runs it sent. */
    private static int sweep() {
        return given().contentType(ContentType.JSON)
                .body(EVENT)
                .when()
                .post()
                .then()
                .statusCode(200)
                .body("failed", equalTo(0))
                // The report's instants reach the Lambda's caller (and its log) as ISO-8601 strings.
                .body("horizon", matchesPattern("\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z"))
                .extract()
                .path("sent");
    }
}
