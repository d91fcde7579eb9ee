package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.error.FieldError;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Invalid cron and dates specs: each error names the offending field. */
class CronAndDatesValidationTest {
    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    private final Schedules schedules = new Schedules(Duration.ofSeconds(5));

    private List<FieldError> errors(ScheduleSpec spec) {
        return Rejections.rejected(schedules, spec, NOW, "schedule").errors();
    }

    private List<String> errorFields(ScheduleSpec spec) {
        return Rejections.fields(Rejections.rejected(schedules, spec, NOW, "schedule"));
    }

    private static ScheduleSpec cron(String expression, String timezone, String gap, String overlap) {
        return new ScheduleSpec("cron", null, null, null, null, expression, timezone, gap, overlap, null);
    }

    private static ScheduleSpec dates(List<DateSpec> dates) {
        return ScheduleSpec.dates(dates, null);
    }

    private static ScheduleSpec withPolicy(ScheduleSpec s, String gap, String overlap) {
        return new ScheduleSpec(
                s.type(), s.at(), s.every(), s.start(), s.end(), s.expression(), s.timezone(), gap, overlap, s.dates());
    }

    @Test
    void badExpressionNamesTheExpressionAndSaysWhy() {
        assertThat(errors(cron("61 * * * *", null, null, null))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("schedule.expression");
            assertThat(e.message()).contains("not a valid cron expression").contains("61");
        });
        assertThat(errorFields(cron("every day", null, null, null))).containsExactly("schedule.expression");
        assertThat(errorFields(cron("0 0 30 2 *", null, null, null))).containsExactly("schedule.expression");
        assertThat(errorFields(cron(null, null, null, null))).containsExactly("schedule.expression");
        assertThat(errorFields(cron("  ", null, null, null))).containsExactly("schedule.expression");
    }

    @Test
    void secondsCloserThanTheMinimumIntervalAreRejected() {
        assertThat(errors(cron("* * * * * *", null, null, null)))
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.field()).isEqualTo("schedule.expression");
                    assertThat(e.message()).contains("5 s");
                });
        assertThat(errorFields(cron("0,58 * * * * *", null, null, null))).containsExactly("schedule.expression");
        assertThat(schedules.parse(cron("*/5 * * * * *", null, null, null), NOW, "schedule"))
                .isInstanceOf(CronSchedule.class);
    }

    @Test
    void badZoneNamesTheTimezone() {
        assertThat(errorFields(cron("0 9 * * *", "Mars/Olympus", null, null))).containsExactly("schedule.timezone");
        assertThat(errorFields(cron("0 9 * * *", "+02:00", null, null)))
                .as("an offset has no DST rules")
                .containsExactly("schedule.timezone");
        assertThat(errorFields(cron("0 9 * * *", "EST", null, null))).containsExactly("schedule.timezone");
        assertThat(errorFields(cron("0 9 * * *", "europe/london", null, null))).containsExactly("schedule.timezone");
    }

    @Test
    void badPolicyValuesNameTheirFields() {
        assertThat(errors(cron("0 9 * * *", null, "later", "both")))
                .extracting(FieldError::field)
                .containsExactlyInAnyOrder("schedule.dstGap", "schedule.dstOverlap");
        assertThat(errors(cron("0 9 * * *", null, "SHIFT", null)))
                .singleElement()
                .satisfies(e -> assertThat(e.message()).contains("shift, skip"));
        assertThat(errorFields(withPolicy(dates(List.of(DateSpec.of("2030-06-01T00:00:00Z"))), "skip", "thrice")))
                .containsExactly("schedule.dstOverlap");
    }

    @Test
    void cronBoundsAreCheckedLikeAnIntervals() {
        ScheduleSpec endBeforeStart = new ScheduleSpec(
                "cron",
                null,
                null,
                "2030-02-01T00:00:00Z",
                "2030-01-15T00:00:00Z",
                "0 9 * * *",
                null,
                null,
                null,
                null);
        assertThat(errorFields(endBeforeStart)).containsExactly("schedule.end");
        ScheduleSpec endPast =
                new ScheduleSpec("cron", null, null, null, "2029-12-31T00:00:00Z", "0 9 * * *", null, null, null, null);
        assertThat(errorFields(endPast)).containsExactly("schedule.end");
        ScheduleSpec badStart =
                new ScheduleSpec("cron", null, null, "tomorrow", null, "0 9 * * *", null, null, null, null);
        assertThat(errorFields(badStart)).containsExactly("schedule.start");
    }

    @Test
    void fieldsOfOtherKindsAreNotAllowed() {
        assertThat(errorFields(new ScheduleSpec(
                        "cron",
                        "2030-01-01T13:00:00Z",
                        "PT10S",
                        null,
                        null,
                        "0 9 * * *",
                        null,
                        null,
                        null,
                        List.of(DateSpec.of("2030-06-01T00:00:00Z")))))
                .containsExactlyInAnyOrder("schedule.at", "schedule.every", "schedule.dates");
        assertThat(errorFields(new ScheduleSpec(
                        "dates",
                        null,
                        null,
                        "2030-01-01T13:00:00Z",
                        null,
                        "0 9 * * *",
                        "UTC",
                        null,
                        null,
                        List.of(DateSpec.of("2030-06-01T00:00:00Z")))))
                .containsExactlyInAnyOrder("schedule.start", "schedule.expression", "schedule.timezone");
        assertThat(errorFields(new ScheduleSpec(
                        "once", "2030-01-01T13:00:00Z", null, null, null, "0 9 * * *", "UTC", "shift", "once", null)))
                .containsExactlyInAnyOrder(
                        "schedule.expression", "schedule.timezone", "schedule.dstGap", "schedule.dstOverlap");
        assertThat(errorFields(new ScheduleSpec(
                        "interval", null, "PT10S", null, null, null, "Europe/London", null, null, null)))
                .containsExactly("schedule.timezone");
    }

    @Test
    void datesAreRequiredAndBounded() {
        assertThat(errorFields(dates(null))).containsExactly("schedule.dates");
        assertThat(errorFields(dates(List.of()))).containsExactly("schedule.dates");
        List<DateSpec> many = new ArrayList<>();
        for (int i = 0; i <= Schedules.MAX_DATES; i++) {
            many.add(DateSpec.of(
                    Instant.parse("2031-01-01T00:00:00Z").plusSeconds(60L * i).toString()));
        }
        assertThat(errors(dates(many))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("schedule.dates");
            assertThat(e.message()).contains("1000");
        });
        assertThat(schedules.parse(dates(many.subList(0, Schedules.MAX_DATES)), NOW, "schedule"))
                .isInstanceOf(DatesSchedule.class);
    }

    @Test
    void eachBadEntryIsNamedByItsIndex() {
        List<DateSpec> d = new ArrayList<>(List.of(
                DateSpec.of("2030-06-01T00:00:00Z"),
                DateSpec.of("2030-06-01T09:00:00"),
                DateSpec.local("2030-06-01T09:00:00", "Nowhere/City"),
                DateSpec.local("June 1st", "Europe/Berlin"),
                DateSpec.local("2030-06-01T09:00:00", null),
                new DateSpec("2030-06-01T00:00:00Z", "2030-06-01T09:00:00", "Europe/Berlin")));
        d.add(null);
        assertThat(errorFields(dates(d)))
                .containsExactly(
                        "schedule.dates[1]",
                        "schedule.dates[2].zone",
                        "schedule.dates[3].local",
                        "schedule.dates[4].zone",
                        "schedule.dates[5]",
                        "schedule.dates[6]");
    }

    @Test
    void duplicatesAreRejectedNamingTheLaterEntry() {
        // 09:00 in Berlin in June is 07:00Z; +02:00 spells the same instant a third way.
        List<FieldError> e = errors(dates(List.of(
                DateSpec.of("2030-06-01T07:00:00Z"),
                DateSpec.of("2030-07-01T07:00:00Z"),
                DateSpec.local("2030-06-01T09:00:00", "Europe/Berlin"),
                DateSpec.of("2030-06-01T09:00:00+02:00"))));
        assertThat(e).extracting(FieldError::field).containsExactly("schedule.dates[2]", "schedule.dates[3]");
        assertThat(e.get(0).message()).contains("schedule.dates[0]");
    }

    @Test
    void aGapShiftedLocalTimeDuplicatesTheInstantAfterTheGap() {
        // 02:30 does not exist in Berlin on 31 March 2030; shifted, it runs at 03:00+02:00 = 01:00Z.
        assertThat(errorFields(dates(List.of(
                        DateSpec.of("2030-03-31T01:00:00Z"), DateSpec.local("2030-03-31T02:30:00", "Europe/Berlin")))))
                .containsExactly("schedule.dates[1]");
    }

    @Test
    void atLeastOneDateMustBeInTheFuture() {
        assertThat(errors(dates(List.of(DateSpec.of("2029-06-01T00:00:00Z"), DateSpec.of("2029-07-01T00:00:00Z")))))
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.field()).isEqualTo("schedule.dates");
                    assertThat(e.message()).contains("future");
                });
        assertThat(errorFields(dates(List.of(DateSpec.of(NOW.minusMillis(1).toString())))))
                .hasSize(1);
        assertThat(schedules
                        .parse(dates(List.of(DateSpec.of(NOW.toString()))), NOW, "schedule")
                        .first(NOW))
                .contains(NOW);
    }

    @Test
    void aSkippedLocalTimeAloneIsNoFutureDate() {
        ScheduleSpec s =
                withPolicy(dates(List.of(DateSpec.local("2030-03-31T02:30:00", "Europe/Berlin"))), "skip", null);
        assertThat(errorFields(s)).containsExactly("schedule.dates");
    }

    @Test
    void nullElementsInTheListAreNamed() {
        assertThat(errorFields(dates(Collections.singletonList(null)))).containsExactly("schedule.dates[0]");
    }
}
