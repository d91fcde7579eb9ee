package dev.punctual.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.schedule.DateSpec;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.time.SettableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Previews: validated like a job's schedule, walked like the dispatcher walks it, DST edges flagged. */
class SchedulePreviewTest {
    private static final Instant NOW = Instant.parse("2030-03-08T12:00:00Z");
    // Preview needs no storage: only the schedules and the clock.
    private final JobService service = previewOnly(new Schedules(Duration.ofSeconds(5)), new SettableClock(NOW));

    private static JobService previewOnly(Schedules schedules, Clock clock) {
        return new JobService(null, null, schedules, null, null, null, null, null, null, clock);
    }

    private static ScheduleSpec cron(String expression, String zone) {
        return new ScheduleSpec("cron", null, null, null, null, expression, zone, null, null, null);
    }

    @Test
    void aNewYorkDailyCronAcrossTheMarchTransitionFlagsTheShiftedRun() {
        SchedulePreview p = service.preview(new PreviewRequest(cron("30 2 * * *", "America/New_York"), 4, null));
        assertThat(p.timezone()).isEqualTo("America/New_York");
        assertThat(p.occurrences())
                .containsExactly(
                        new PreviewOccurrence(
                                "2030-03-09T07:30:00Z", "2030-03-09T02:30:00-05:00[America/New_York]", null),
                        new PreviewOccurrence(
                                "2030-03-10T07:00:00Z", "2030-03-10T03:00:00-04:00[America/New_York]", "gap-shifted"),
                        new PreviewOccurrence(
                                "2030-03-11T06:30:00Z", "2030-03-11T02:30:00-04:00[America/New_York]", null),
                        new PreviewOccurrence(
                                "2030-03-12T06:30:00Z", "2030-03-12T02:30:00-04:00[America/New_York]", null));
    }

    @Test
    void overlapTwiceIsFlaggedFirstAndSecond() {
        ScheduleSpec spec =
                new ScheduleSpec("cron", null, null, null, null, "30 1 * * *", "America/New_York", null, "twice", null);
        SchedulePreview p = service.preview(new PreviewRequest(spec, 3, "2030-11-03T00:00:00Z"));
        assertThat(p.occurrences())
                .extracting(PreviewOccurrence::local)
                .containsExactly(
                        "2030-11-03T01:30:00-04:00[America/New_York]",
                        "2030-11-03T01:30:00-05:00[America/New_York]",
                        "2030-11-04T01:30:00-05:00[America/New_York]");
        assertThat(p.occurrences())
                .extracting(PreviewOccurrence::dst)
                .containsExactly("overlap-first", "overlap-second", null);
    }

    @Test
    void countDefaultsToTenAndStopsWhereTheScheduleEnds() {
        assertThat(service.preview(new PreviewRequest(cron("*/5 * * * *", null), null, null))
                        .occurrences())
                .hasSize(SchedulePreview.DEFAULT_COUNT);
        ScheduleSpec interval = ScheduleSpec.interval("PT1H", null, "2030-03-08T15:00:00Z");
        SchedulePreview p = service.preview(new PreviewRequest(interval, 100, null));
        assertThat(p.timezone()).isEqualTo("UTC");
        assertThat(p.occurrences())
                .extracting(PreviewOccurrence::at)
                .containsExactly(
                        "2030-03-08T12:00:00Z", "2030-03-08T13:00:00Z", "2030-03-08T14:00:00Z", "2030-03-08T15:00:00Z");
    }

    @Test
    void datesShowEachEntryInItsOwnZone() {
        ScheduleSpec dates = ScheduleSpec.dates(
                List.of(DateSpec.of("2030-04-01T00:00:00Z"), DateSpec.local("2030-03-31T02:30:00", "Europe/Berlin")),
                null);
        SchedulePreview p = service.preview(new PreviewRequest(dates, 10, null));
        assertThat(p.timezone()).isNull();
        assertThat(p.occurrences())
                .containsExactly(
                        new PreviewOccurrence(
                                "2030-03-31T01:00:00Z", "2030-03-31T03:00:00+02:00[Europe/Berlin]", "gap-shifted"),
                        new PreviewOccurrence("2030-04-01T00:00:00Z", "2030-04-01T00:00:00Z", null));
    }

    @Test
    void invalidInputIs422NamingEveryField() {
        ValidationException e = catchThrowableOfType(
                ValidationException.class,
                () -> service.preview(new PreviewRequest(cron("0 25 * * *", "Europe/Nowhere"), 101, "yesterday")));
        assertThat(e.kind()).isEqualTo(Rejection.INVALID);
        assertThat(e.errors())
                .extracting(FieldError::field)
                .containsExactlyInAnyOrder("count", "from", "schedule.expression", "schedule.timezone");
        assertThat(catchThrowableOfType(
                                ValidationException.class, () -> service.preview(new PreviewRequest(null, null, null)))
                        .errors())
                .extracting(FieldError::field)
                .containsExactly("schedule");
    }
}
