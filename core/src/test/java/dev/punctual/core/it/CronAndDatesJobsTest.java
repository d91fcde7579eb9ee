package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.Punctual;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.DateSpec;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.PreviewOccurrence;
import dev.punctual.core.service.SchedulePreview;
import dev.punctual.core.sweep.Sweeper;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Cron and dates jobs on the emulators: stored and read back intact, swept lazily one occurrence at a time. */
class CronAndDatesJobsTest {

    private static Instant realNow() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS);
    }

    private static Map<String, AttributeValue> rawSchedule(Punctual p, String jobId) {
        return Fixture.dynamo()
                .getItem(b -> b.tableName(p.resources.jobs().name())
                        .consistentRead(true)
                        .key(Map.of(Resources.JOB_ID, AttributeValue.fromS(jobId))))
                .item()
                .get("schedule")
                .m();
    }

    /** Creates a job with {@code input} and reads it back: the API answers {@code stored} both times. */
    private static JobView createAndReadBack(Punctual p, String name, ScheduleSpec input, ScheduleSpec stored) {
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("echo " + name));
        JobView created = p.jobService.create(
                OWNER, JobRequest.builder(name, binaryId, input).build());
        assertThat(created.schedule()).isEqualTo(stored);
        assertThat(p.jobService.get(OWNER, created.id()).schedule()).isEqualTo(stored);
        return created;
    }

    /** 02:30 every night in New York until 2031, twice in the repeated hour, {@code dstGap} in the skipped one. */
    private static ScheduleSpec nightly(String dstGap) {
        return new ScheduleSpec(
                "cron",
                null,
                null,
                null,
                "2031-01-01T00:00:00Z",
                "30 2 * * *",
                "America/New_York",
                dstGap,
                "twice",
                null);
    }

    @Test
    void aCronJobIsStoredWithItsDefaultsAndReadBackIdentical() {
        Punctual p = Fixture.stackAt(Instant.parse("2030-03-08T12:00:00Z"));
        ScheduleSpec input = nightly(null);
        ScheduleSpec stored = nightly("shift");

        JobView created = createAndReadBack(p, "nightly", input, stored);

        assertThat(created.nextRunAt()).isEqualTo("2030-03-09T07:30:00Z");
        assertThat(rawSchedule(p, created.id()))
                .containsEntry("expression", AttributeValue.fromS("30 2 * * *"))
                .containsEntry("timezone", AttributeValue.fromS("America/New_York"))
                .containsEntry("dstGap", AttributeValue.fromS("shift"));

        // Its next occurrences, as the dispatcher will compute them: the spring-forward day runs at 03:00 EDT.
        SchedulePreview next = p.jobService.next(OWNER, created.id(), 3);
        assertThat(next.timezone()).isEqualTo("America/New_York");
        assertThat(next.occurrences())
                .extracting(PreviewOccurrence::at)
                .containsExactly("2030-03-09T07:30:00Z", "2030-03-10T07:00:00Z", "2030-03-11T06:30:00Z");
        assertThat(next.occurrences()).extracting(PreviewOccurrence::dst).containsExactly(null, "gap-shifted", null);
        assertThat(catchThrowableOfType(
                        NotFoundException.class, () -> p.jobService.next(OWNER, "job_aaaaaaaaaaaaaaaaaaaa", 3)))
                .isNotNull();
        assertThat(catchThrowableOfType(
                        NotFoundException.class, () -> p.jobService.next("someone-else", created.id(), 3)))
                .isNotNull();

        p.deletions.delete(OWNER, created.id());
        assertThat(p.jobService.next(OWNER, created.id(), 3).occurrences())
                .as("deleted: never runs again")
                .isEmpty();
    }

    @Test
    void aDatesJobIsStoredReadablyAndReadBackIdentical() {
        Punctual p = Fixture.stackAt(Instant.parse("2030-03-01T12:00:00Z"));
        List<DateSpec> dates = List.of(
                DateSpec.of("2030-02-01T00:00:00Z"),
                DateSpec.local("2030-03-31T02:30:00", "Europe/Berlin"),
                DateSpec.of("2030-04-01T09:00:00Z"));
        ScheduleSpec input = ScheduleSpec.dates(dates, null);
        ScheduleSpec stored = ScheduleSpec.dates(dates, dev.punctual.core.schedule.DstPolicy.DEFAULT);

        JobView created = createAndReadBack(p, "some days", input, stored);

        assertThat(created.nextRunAt())
                .as("the past entry is not run; 02:30 is shifted past the gap")
                .isEqualTo("2030-03-31T01:00:00Z");
        List<AttributeValue> raw = rawSchedule(p, created.id()).get("dates").l();
        assertThat(raw.get(0)).isEqualTo(AttributeValue.fromS("2030-02-01T00:00:00Z"));
        assertThat(raw.get(1).m())
                .isEqualTo(Map.of(
                        "local",
                        AttributeValue.fromS("2030-03-31T02:30:00"),
                        "zone",
                        AttributeValue.fromS("Europe/Berlin")));
        assertThat(p.jobService.next(OWNER, created.id(), 10).occurrences())
                .extracting(PreviewOccurrence::at)
                .containsExactly("2030-03-31T01:00:00Z", "2030-04-01T09:00:00Z");
    }

    @Test
    void oneSweepOfATenSecondCronQueuesEveryOccurrenceInTheLookaheadOnceAndLeavesOnePendingRun() {
        // A chosen instant, far from London's DST changes: under "once" the repeated hour of late October has no
        // runs, and a sweep read off the wall clock then would find fewer than the plain 10-second grid.
        Instant now = Instant.parse("2030-06-03T12:00:03Z");
        Instant start = now.plusSeconds(10 - now.getEpochSecond() % 10);
        Punctual p = Fixture.stackAt(now);
        ScheduleSpec spec = new ScheduleSpec(
                "cron", null, null, null, null, "*/10 * * * * *", "Europe/London", "shift", "once", null);
        Job job = Fixture.insertJob(p, spec, start, now, 3);

        Sweeper.SweepReport report = p.sweeper.sweep();

        Instant horizon = report.horizon();
        List<Instant> expected = Fixture.every(Duration.ofSeconds(10), start, horizon);
        assertThat(expected).hasSizeGreaterThanOrEqualTo(12);
        assertThat(report.sent()).isEqualTo(expected.size());
        assertThat(report.marked()).isEqualTo(expected.size());
        assertThat(report.materialized()).isEqualTo(expected.size());
        assertThat(report.failed()).isZero();
        List<Run> runs = Fixture.runsOf(p, job.id());
        assertThat(runs.stream().filter(r -> r.state() == RunState.QUEUED).map(Run::scheduledAt))
                .containsExactlyElementsOf(expected);
        List<Run> pending =
                runs.stream().filter(r -> r.state() == RunState.SCHEDULED).toList();
        assertThat(pending)
                .extracting(Run::scheduledAt)
                .containsExactly(expected.getLast().plusSeconds(10));
        assertThat(runs).hasSize(expected.size() + 1);
        Job after = p.jobs.get(job.id()).orElseThrow();
        assertThat(after.pendingRunId()).isEqualTo(pending.get(0).runId());
        assertThat(after.state()).isEqualTo(JobState.ACTIVE);
        assertThat(Fixture.queueCounts(p).total()).isEqualTo(expected.size());

        Sweeper.SweepReport again = p.sweeper.sweep();
        assertThat(again.sent()).isZero();
        assertThat(Fixture.runsOf(p, job.id())).hasSize(expected.size() + 1);
    }

    @Test
    void aDatesJobIsSweptDateByDateAndCompletesAfterItsLast() {
        Instant now = realNow();
        SettableClock clock = new SettableClock(now);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        Instant a = now.plusSeconds(20);
        Instant b = now.plusSeconds(50);
        Instant c = now.plus(Duration.ofMinutes(30));
        ScheduleSpec spec = ScheduleSpec.dates(
                List.of(DateSpec.of(c.toString()), DateSpec.of(a.toString()), DateSpec.of(b.toString())), null);
        Job job = Fixture.insertJob(p, spec, a, now, 3);

        p.sweeper.sweep();

        List<Run> runs = Fixture.runsOf(p, job.id());
        assertThat(runs).extracting(Run::scheduledAt).containsExactly(a, b, c);
        assertThat(runs).extracting(Run::state).containsExactly(RunState.QUEUED, RunState.QUEUED, RunState.SCHEDULED);

        clock.set(c.minusSeconds(30));
        p.sweeper.sweep();

        assertThat(Fixture.runsOf(p, job.id())).extracting(Run::state).containsOnly(RunState.QUEUED);
        Job after = p.jobs.get(job.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(JobState.COMPLETED);
        assertThat(after.pendingRunId()).isNull();
    }
}
