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
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sweeper through its Lambda handler: each POST to the mock event server is one EventBridge invocation. */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class SweepHandlerTest {
    private static final String EVENT = """
            {"version":"0","id":"e1","detail-type":"Scheduled Event","source":"aws.events",
             "account":"000000000000","time":"2026-11-22T10:00:00Z","region":"us-east-1",
             "resources":["arn:aws:events:us-east-1:000000000000:rule/punctual-sweep"],"detail":{}}""";

    @Inject
    Punctual punctual;

    @Test
    void queuesEveryOccurrenceInsideTheWindowAndLeavesOnePendingRun() {
        // A 10-second interval job written straight to the table (as if created long ago), first run due in 15 s.
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Instant first = now.plusSeconds(15);
        Schedule.Interval schedule = new Schedule.Interval(Duration.ofSeconds(10), first, null);
        Run run = Run.scheduled("job_sweeptestsweeptest00", RunIds.forOccurrence(first), "local", first, 3, now);
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
                .createdAt(now)
                .updatedAt(now)
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
        // lookahead 2 min: occurrences at +15 s … ≤ now + 120 s, every 10 s; the sweep reads the system clock, so
        // each 10 s it started after `now` (a loaded machine) lets one more occurrence in.
        long late = Duration.between(now, Instant.now()).toSeconds();
        assertThat(sent).isBetween(10, 12 + (int) (late / 10));

        Job after = punctual.jobs.get(job.id()).orElseThrow();
        Run pending = punctual.runs.get(job.id(), after.pendingRunId()).orElseThrow();
        assertThat(pending.state()).isEqualTo(RunState.SCHEDULED);
        assertThat(pending.scheduledAt())
                .isAfter(now.plus(punctual.settings.sweep().lookahead()).minusSeconds(1));
        var page = punctual.runs.listForJob(job.id(), 100, null).items();
        assertThat(page.stream().filter(r -> r.state() == RunState.QUEUED).count())
                .isEqualTo(sent);
        assertThat(page.stream().filter(r -> r.state() == RunState.SCHEDULED).count())
                .isEqualTo(1);

        // A second (duplicate) invocation re-sends nothing that is already QUEUED: whatever it sends (the pending
        // run, if the clock has moved it into the window meanwhile on a slow machine) is a run that was SCHEDULED.
        int sentAgain = sweep();
        var after2 = punctual.runs.listForJob(job.id(), 100, null).items();
        assertThat(after2.stream().filter(r -> r.state() == RunState.QUEUED).count())
                .isEqualTo(sent + sentAgain);
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
