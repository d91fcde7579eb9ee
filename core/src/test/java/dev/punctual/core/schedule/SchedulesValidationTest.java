package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Invalid specs: each error names the offending field under the caller's path. */
class SchedulesValidationTest {
    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    private final Schedules schedules = new Schedules(Duration.ofSeconds(5));

    private ValidationException rejected(ScheduleSpec spec, String path) {
        return Rejections.rejected(schedules, spec, NOW, path);
    }

    private List<String> errorFields(ScheduleSpec spec) {
        ValidationException e = rejected(spec, "schedule");
        assertThat(e.kind()).isEqualTo(Rejection.MALFORMED);
        return Rejections.fields(e);
    }

    private static ScheduleSpec once(String at) {
        return ScheduleSpec.once(at);
    }

    private static ScheduleSpec every(String every) {
        return ScheduleSpec.interval(every, null, null);
    }

    @Test
    void missingSpecNamesTheFieldItself() {
        assertThat(errorFields(null)).containsExactly("schedule");
    }

    @Test
    void missingType() {
        assertThat(errorFields(new ScheduleSpec(null, null, null, null, null, null, null, null, null, null)))
                .containsExactly("schedule.type");
    }

    @Test
    void unknownType() {
        ValidationException e =
                rejected(new ScheduleSpec("weekly", null, null, null, null, null, null, null, null, null), "schedule");
        assertThat(e.errors()).singleElement().satisfies(err -> {
            assertThat(err.field()).isEqualTo("schedule.type");
            assertThat(err.message()).contains("weekly");
        });
    }

    @Test
    void fieldPathFollowsTheCallersPath() {
        ValidationException e = rejected(once(null), "jobs[2].schedule");
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("jobs[2].schedule.at");
    }

    @Test
    void onceWithoutAt() {
        assertThat(errorFields(once(null))).containsExactly("schedule.at");
    }

    @Test
    void onceWithABadInstant() {
        assertThat(errorFields(once("next tuesday"))).containsExactly("schedule.at");
        assertThat(errorFields(once("2030-01-01T13:00:00"))).as("no offset").containsExactly("schedule.at");
    }

    @Test
    void onceMoreThanFiveMinutesInThePast() {
        assertThat(errorFields(
                        once(NOW.minus(Duration.ofMinutes(5)).minusSeconds(1).toString())))
                .containsExactly("schedule.at");
    }

    @Test
    void onceRejectsIntervalFields() {
        assertThat(errorFields(new ScheduleSpec(
                        "once",
                        "2030-01-01T13:00:00Z",
                        "PT10S",
                        "2030-01-01T13:00:00Z",
                        "2030-01-02T13:00:00Z",
                        null,
                        null,
                        null,
                        null,
                        null)))
                .containsExactlyInAnyOrder("schedule.every", "schedule.start", "schedule.end");
    }

    @Test
    void nowRejectsEveryOtherField() {
        assertThat(errorFields(new ScheduleSpec(
                        "now", "2030-01-01T13:00:00Z", "PT10S", null, null, null, null, null, null, null)))
                .containsExactlyInAnyOrder("schedule.at", "schedule.every");
    }

    @Test
    void intervalRejectsAt() {
        assertThat(errorFields(new ScheduleSpec(
                        "interval", "2030-01-01T13:00:00Z", "PT10S", null, null, null, null, null, null, null)))
                .containsExactly("schedule.at");
    }

    @Test
    void intervalWithoutEvery() {
        assertThat(errorFields(every(null))).containsExactly("schedule.every");
    }

    @Test
    void intervalBelowTheMinimum() {
        assertThat(errorFields(every("PT4S"))).containsExactly("schedule.every");
        assertThat(errorFields(every("PT0S"))).containsExactly("schedule.every");
        assertThat(errorFields(every("PT-10S"))).containsExactly("schedule.every");
    }

    @Test
    void intervalNotWholeSeconds() {
        ValidationException e = rejected(every("PT5.5S"), "schedule");
        assertThat(e.errors()).singleElement().satisfies(err -> {
            assertThat(err.field()).isEqualTo("schedule.every");
            assertThat(err.message()).contains("whole");
        });
    }

    @Test
    void intervalWithBadDurationText() {
        assertThat(errorFields(every("10 seconds"))).containsExactly("schedule.every");
        assertThat(errorFields(every("10"))).containsExactly("schedule.every");
    }

    @Test
    void intervalWithBadStart() {
        assertThat(errorFields(ScheduleSpec.interval("PT10S", "soon", null))).containsExactly("schedule.start");
    }

    @Test
    void intervalEndBeforeOrAtStart() {
        assertThat(errorFields(ScheduleSpec.interval("PT10S", "2030-01-02T00:00:00Z", "2030-01-01T23:00:00Z")))
                .containsExactly("schedule.end");
        assertThat(errorFields(ScheduleSpec.interval("PT10S", "2030-01-02T00:00:00Z", "2030-01-02T00:00:00Z")))
                .containsExactly("schedule.end");
    }

    @Test
    void intervalEndInThePast() {
        assertThat(errorFields(ScheduleSpec.interval("PT10S", "2029-12-01T00:00:00Z", "2030-01-01T11:00:00Z")))
                .containsExactly("schedule.end");
    }

    @Test
    void reportsEveryBadFieldAtOnce() {
        assertThat(errorFields(new ScheduleSpec(
                        "interval", "2030-01-01T13:00:00Z", "PT1S", "soon", "later", null, null, null, null, null)))
                .containsExactlyInAnyOrder("schedule.at", "schedule.every", "schedule.start", "schedule.end");
    }

    @Test
    void hugeIntervalIsAValidationErrorNotACrash() {
        assertThatThrownBy(() -> schedules.parse(every("P200000000000D"), NOW, "schedule"))
                .isInstanceOf(ValidationException.class);
    }
}
