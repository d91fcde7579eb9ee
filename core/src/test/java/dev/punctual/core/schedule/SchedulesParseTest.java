package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Valid specs of each type and what they parse to. */
class SchedulesParseTest {
    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00.400Z");
    private final Schedules schedules = new Schedules(Duration.ofSeconds(5));

    private Schedule parse(ScheduleSpec spec) {
        return schedules.parse(spec, NOW, "schedule");
    }

    @Test
    void nowRunsOnceAtCreation() {
        Schedule s = parse(ScheduleSpec.now());
        assertThat(s).isInstanceOf(Schedule.Now.class);
        assertThat(s.first(NOW)).contains(NOW);
        assertThat(s.next(NOW)).isEmpty();
    }

    @Test
    void onceInTheFutureRunsAtItsTimeOnly() {
        Schedule s = parse(ScheduleSpec.once("2030-01-01T13:00:00+01:00"));
        assertThat(s).isEqualTo(new Schedule.Once(Instant.parse("2030-01-01T12:00:00Z")));
        Instant before = Instant.parse("2030-01-01T11:00:00Z");
        assertThat(s.first(before)).contains(Instant.parse("2030-01-01T12:00:00Z"));
        assertThat(s.next(Instant.parse("2030-01-01T12:00:00Z"))).isEmpty();
    }

    @Test
    void onceAMinuteInThePastIsAcceptedAndRunsNow() {
        Schedule s = parse(ScheduleSpec.once(NOW.minus(Duration.ofMinutes(1)).toString()));
        assertThat(s.first(NOW)).contains(NOW);
    }

    @Test
    void onceTruncatesToMilliseconds() {
        Schedule s = parse(ScheduleSpec.once("2030-01-02T00:00:00.123456Z"));
        assertThat(((Schedule.Once) s).at()).isEqualTo(Instant.parse("2030-01-02T00:00:00.123Z"));
    }

    @Test
    void intervalWithoutStartStartsAtTheCurrentWholeSecond() {
        Schedule s = parse(ScheduleSpec.interval("PT10S", null, null));
        assertThat(s)
                .isEqualTo(new Schedule.Interval(Duration.ofSeconds(10), Instant.parse("2030-01-01T12:00:00Z"), null));
        // now is 400 ms past the start: the first occurrence is the next boundary.
        assertThat(s.first(NOW)).contains(Instant.parse("2030-01-01T12:00:10Z"));
    }

    @Test
    void intervalWithStartAndEnd() {
        Schedule s = parse(ScheduleSpec.interval("PT1M", "2030-01-01T13:00:00Z", "2030-01-01T14:00:00+00:00"));
        assertThat(s)
                .isEqualTo(new Schedule.Interval(
                        Duration.ofMinutes(1),
                        Instant.parse("2030-01-01T13:00:00Z"),
                        Instant.parse("2030-01-01T14:00:00Z")));
    }

    @Test
    void intervalAtExactlyTheMinimumIsAccepted() {
        Schedule s = parse(ScheduleSpec.interval("PT5S", null, null));
        assertThat(((Schedule.Interval) s).every()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void specRoundTripsThroughParse() {
        for (ScheduleSpec spec : new ScheduleSpec[] {
            ScheduleSpec.now(),
            ScheduleSpec.once("2030-01-01T12:30:00Z"),
            ScheduleSpec.once("2030-01-01T11:58:00+00:00"),
            ScheduleSpec.interval("PT10S", null, null),
            ScheduleSpec.interval("P1D", "2029-12-31T00:00:00Z", "2030-02-01T00:00:00Z"),
            ScheduleSpec.interval("PT90S", "2030-01-01T12:00:00.250+02:00", null)
        }) {
            Schedule s = parse(spec);
            ScheduleSpec written = s.spec();
            assertThat(written.type()).isEqualTo(spec.type());
            assertThat(parse(written)).as("re-parse of %s", written).isEqualTo(s);
        }
    }
}
