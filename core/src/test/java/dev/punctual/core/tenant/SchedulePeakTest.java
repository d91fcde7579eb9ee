package dev.punctual.core.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.schedule.DateSpec;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.schedule.Schedules;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchedulePeakTest {
    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private final Schedules schedules = new Schedules(Duration.ofSeconds(5));

    private int peak(ScheduleSpec spec) {
        return SchedulePeak.perMinute(schedules.parse(spec, NOW, "schedule"), NOW);
    }

    @Test
    void aSingleRunIsOne() {
        assertThat(peak(ScheduleSpec.now())).isEqualTo(1);
    }

    @Test
    void intervalsCountTheirStartsInAMinute() {
        assertThat(peak(spec("interval", "PT5S"))).isEqualTo(12);
        assertThat(peak(spec("interval", "PT7S"))).isEqualTo(9);
        assertThat(peak(spec("interval", "PT1H"))).isEqualTo(1);
    }

    @Test
    void cronCountsItsSecondsAndDatesTheirBusiestMinute() {
        assertThat(peak(cron("*/10 * * * * *"))).isEqualTo(6);
        assertThat(peak(cron("*/5 * * * *"))).isEqualTo(1);
        ScheduleSpec dates = ScheduleSpec.dates(
                List.of(
                                "2030-01-02T00:00:00Z",
                                "2030-01-02T00:00:30Z",
                                "2030-01-02T00:00:45Z",
                                "2030-01-02T00:00:59Z",
                                "2030-01-02T00:01:00Z",
                                "2030-01-03T00:00:00Z")
                        .stream()
                        .map(DateSpec::of)
                        .toList(),
                null);
        // 60 seconds hold 00:30, 00:45, 00:59 and 01:00; 00:00 and 01:00 are a whole minute apart.
        assertThat(peak(dates)).isEqualTo(4);
    }

    private static ScheduleSpec spec(String type, String every) {
        return new ScheduleSpec(type, null, every, null, null, null, null, null, null, null);
    }

    private static ScheduleSpec cron(String expression) {
        return ScheduleSpec.cron(expression, null, null, null, null);
    }
}
