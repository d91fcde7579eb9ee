package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.time.Instants;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Instants outside 1970–9999 and over-long texts: each a field error, never an arithmetic overflow or an
 * occurrence whose run id would not sort; and no schedule yields an occurrence past year 9999.
 */
class SupportedRangeTest {
    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    private final Schedules schedules = new Schedules(Duration.ofSeconds(5));

    private FieldError error(ScheduleSpec spec) {
        ValidationException e =
                catchThrowableOfType(ValidationException.class, () -> schedules.parse(spec, NOW, "schedule"));
        assertThat(e).as("expected %s to be rejected", spec).isNotNull();
        assertThat(e.errors()).hasSize(1);
        return e.errors().getFirst();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "+10000-01-01T00:00:00Z",
                "+999999999-12-31T23:59:59Z",
                "-999999999-01-01T00:00:00Z",
                "1969-12-31T23:59:59Z"
            })
    void everyInstantFieldIsBoundedToTheSupportedYears(String far) {
        String soon = "2030-06-01T00:00:00Z";
        assertOutOfRange(ScheduleSpec.once(far), "schedule.at");
        assertOutOfRange(ScheduleSpec.interval("PT1H", far, null), "schedule.start");
        assertOutOfRange(ScheduleSpec.interval("PT1H", soon, far), "schedule.end");
        assertOutOfRange(ScheduleSpec.cron("0 * * * *", null, far, null, null), "schedule.start");
        assertOutOfRange(ScheduleSpec.cron("0 * * * *", null, null, far, null), "schedule.end");
        assertOutOfRange(ScheduleSpec.dates(List.of(DateSpec.of(soon), DateSpec.of(far)), null), "schedule.dates[1]");
    }

    @Test
    void aLocalDateResolvingPastYear9999IsOutOfRange() {
        FieldError e =
                error(ScheduleSpec.dates(List.of(DateSpec.local("9999-12-31T23:30:00", "Pacific/Honolulu")), null));
        assertThat(e.field()).isEqualTo("schedule.dates[0].local");
        assertThat(e.message()).startsWith(Instants.OUT_OF_RANGE);
        assertThat(schedules
                        .parse(
                                ScheduleSpec.dates(List.of(DateSpec.local("9999-12-31T23:30:00", "UTC")), null),
                                NOW,
                                "schedule")
                        .first(NOW))
                .contains(Instant.parse("9999-12-31T23:30:00Z"));
    }

    @Test
    void theBoundsThemselvesAreAccepted() {
        assertThat(schedules
                        .parse(ScheduleSpec.once("9999-12-31T23:59:59.999Z"), NOW, "schedule")
                        .first(NOW))
                .contains(Instants.MAX_SUPPORTED);
        assertThat(schedules
                        .parse(ScheduleSpec.interval("PT1H", "1970-01-01T00:00:00Z", null), NOW, "schedule")
                        .first(NOW))
                .contains(NOW);
    }

    @Test
    void noScheduleYieldsAnOccurrencePastYear9999() {
        Instant lastMinute = Instant.parse("9999-12-31T23:59:00Z");
        Schedule interval =
                schedules.parse(ScheduleSpec.interval("PT1H", "9999-12-31T22:30:00Z", null), NOW, "schedule");
        assertThat(interval.next(Instant.parse("9999-12-31T22:30:00Z")))
                .contains(Instant.parse("9999-12-31T23:30:00Z"));
        assertThat(interval.next(Instant.parse("9999-12-31T23:30:00Z"))).isEmpty();
        assertThat(interval.first(lastMinute)).isEmpty();
        Schedule cron = schedules.parse(
                ScheduleSpec.cron("0 0 * * *", "Pacific/Kiritimati", null, null, null), NOW, "schedule");
        assertThat(cron.first(lastMinute)).isEmpty();
        assertThat(cron.first(Instant.parse("9999-12-30T00:00:00Z"))).isPresent();
    }

    @Test
    void aCronExpressionIsCappedAt256Characters() {
        String padded = "0 0 * * *" + " ".repeat(247);
        assertThat(padded).hasSize(256);
        schedules.parse(ScheduleSpec.cron(padded, null, null, null, null), NOW, "schedule");
        FieldError e = error(ScheduleSpec.cron(padded + " ", null, null, null, null));
        assertThat(e.field()).isEqualTo("schedule.expression");
        assertThat(e.message()).isEqualTo("must be at most 256 characters");
    }

    @Test
    void zonesAreCappedAt64Characters() {
        String zone = "Europe/" + "X".repeat(58);
        FieldError cron = error(ScheduleSpec.cron("0 0 * * *", zone, null, null, null));
        assertThat(cron.field()).isEqualTo("schedule.timezone");
        assertThat(cron.message()).startsWith("must be at most 64 characters");
        FieldError dates = error(ScheduleSpec.dates(List.of(DateSpec.local("2030-06-01T00:00:00", zone)), null));
        assertThat(dates.field()).isEqualTo("schedule.dates[0].zone");
        assertThat(dates.message()).doesNotContain(zone);
    }

    @Test
    void aLongUnknownTypeIsNotEchoed() {
        FieldError e = error(new ScheduleSpec("x".repeat(1000), null, null, null, null, null, null, null, null, null));
        assertThat(e.field()).isEqualTo("schedule.type");
        assertThat(e.message()).hasSizeLessThan(100);
    }

    private void assertOutOfRange(ScheduleSpec spec, String field) {
        FieldError e = error(spec);
        assertThat(e.field()).as("%s", spec).isEqualTo(field);
        assertThat(e.message()).isEqualTo(Instants.OUT_OF_RANGE);
    }
}
