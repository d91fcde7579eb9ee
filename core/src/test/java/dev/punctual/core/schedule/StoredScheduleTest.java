package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher re-parses a job's stored spec with the job's createdAt for every next occurrence, however late.
 * A stored spec must parse back to the same schedule, with its defaults written in, and never fail a rule that only
 * made sense at creation ("a date in the future", "end not in the past").
 */
class StoredScheduleTest {
    private static final Instant CREATED = Instant.parse("2030-01-01T12:00:00.123456Z");
    private final Schedules schedules = new Schedules(Duration.ofSeconds(5));

    private Schedule stored(ScheduleSpec input) {
        Schedule atCreation = schedules.parse(input, CREATED, "schedule");
        // As stored: createdAt is kept to the millisecond.
        Schedule reparsed = schedules.parse(atCreation.spec(), CREATED.truncatedTo(ChronoUnit.MILLIS), "schedule");
        assertThat(reparsed).isEqualTo(atCreation);
        assertThat(reparsed.spec()).isEqualTo(atCreation.spec());
        return reparsed;
    }

    @Test
    void cronDefaultsAreWrittenIntoTheStoredSpec() {
        Schedule s = stored(new ScheduleSpec("cron", null, null, null, null, "0  9 * * 1-5", null, null, null, null));
        assertThat(s.spec())
                .isEqualTo(
                        new ScheduleSpec("cron", null, null, null, null, "0 9 * * 1-5", "UTC", "shift", "once", null));
    }

    @Test
    void aCronWithAnEndKeepsWorkingAfterTheEndHasPassed() {
        Schedule s = stored(new ScheduleSpec(
                "cron",
                null,
                null,
                "2030-01-02T00:00:00Z",
                "2030-01-03T12:00:00Z",
                "0 9 * * *",
                "Europe/London",
                "skip",
                "twice",
                null));
        Instant first = s.first(CREATED).orElseThrow();
        assertThat(first).isEqualTo(Instant.parse("2030-01-02T09:00:00Z"));
        assertThat(s.next(first)).contains(Instant.parse("2030-01-03T09:00:00Z"));
        assertThat(s.next(Instant.parse("2030-01-03T09:00:00Z"))).isEmpty();
        assertThat(s.first(Instant.parse("2031-01-01T00:00:00Z"))).isEmpty();
    }

    @Test
    void aDatesScheduleWhoseDatesHaveAllPassedStillParsesAndSimplyHasNoNext() {
        Schedule s = stored(ScheduleSpec.dates(
                List.of(DateSpec.of("2030-01-01T12:00:00.123Z"), DateSpec.local("2030-01-05T09:00:00", "Asia/Kolkata")),
                null));
        Instant last = s.first(CREATED).orElseThrow();
        assertThat(last).as("the entry before creation is not run").isEqualTo(Instant.parse("2030-01-05T03:30:00Z"));
        assertThat(s.next(last)).isEmpty();
    }

    @Test
    void onceAndIntervalAsBefore() {
        stored(ScheduleSpec.once(CREATED.minusSeconds(60).toString()));
        Schedule interval = stored(ScheduleSpec.interval("PT10S", null, null));
        assertThat(interval.spec().start()).isEqualTo("2030-01-01T12:00:00Z");
    }
}
