package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A dates schedule: mixed forms, resolved by the DST policies, walked in time order, past entries not run. */
class DatesScheduleTest {
    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    private final Schedules schedules = new Schedules(Duration.ofSeconds(5));

    private DatesSchedule parse(List<DateSpec> dates, String gap, String overlap) {
        return (DatesSchedule) schedules.parse(spec(dates, gap, overlap), NOW, "schedule");
    }

    /** A dates spec as written, field by field. */
    private static ScheduleSpec spec(List<DateSpec> dates, String gap, String overlap) {
        return new ScheduleSpec("dates", null, null, null, null, null, null, gap, overlap, dates);
    }

    private static Instant at(String text) {
        return Instant.parse(text);
    }

    @Test
    void mixedFormsRunInTimeOrderWhateverTheListOrder() {
        DatesSchedule s = parse(
                List.of(
                        DateSpec.of("2030-06-01T09:00:00+02:00"),
                        DateSpec.local("2030-02-01T09:00:00", "America/New_York"),
                        DateSpec.of("2030-01-15T00:00:00.123456Z")),
                null,
                null);
        assertThat(s.first(NOW)).contains(at("2030-01-15T00:00:00.123Z"));
        assertThat(s.next(at("2030-01-15T00:00:00.123Z"))).contains(at("2030-02-01T14:00:00Z"));
        assertThat(s.next(at("2030-02-01T14:00:00Z"))).contains(at("2030-06-01T07:00:00Z"));
        assertThat(s.next(at("2030-06-01T07:00:00Z"))).isEmpty();
        assertThat(s.nextOccurrence(at("2030-01-16T00:00:00Z"))
                        .orElseThrow()
                        .zone()
                        .getId())
                .isEqualTo("America/New_York");
    }

    @Test
    void pastEntriesAreAcceptedButNeverRun() {
        DatesSchedule s =
                parse(List.of(DateSpec.of("2029-06-01T00:00:00Z"), DateSpec.of("2030-06-01T00:00:00Z")), null, null);
        assertThat(s.first(NOW)).contains(at("2030-06-01T00:00:00Z"));
    }

    @Test
    void aLocalTimeInAGapIsShiftedOrSkipped() {
        DateSpec inGap = DateSpec.local("2030-03-31T02:30:00", "Europe/Berlin");
        DateSpec later = DateSpec.of("2030-04-01T00:00:00Z");
        DatesSchedule shifted = parse(List.of(inGap, later), null, null);
        assertThat(shifted.firstOccurrence(NOW).orElseThrow()).satisfies(o -> {
            assertThat(o.at()).isEqualTo(at("2030-03-31T01:00:00Z"));
            assertThat(o.dst()).isEqualTo(DstEdge.GAP_SHIFTED);
        });
        assertThat(parse(List.of(inGap, later), "skip", null).first(NOW)).contains(at("2030-04-01T00:00:00Z"));
    }

    @Test
    void aLocalTimeInAnOverlapRunsOnceOrTwice() {
        // 02:30 happens twice in Berlin on 27 October 2030: at 00:30Z (CEST) and 01:30Z (CET).
        DateSpec repeated = DateSpec.local("2030-10-27T02:30:00", "Europe/Berlin");
        DatesSchedule once = parse(List.of(repeated), null, null);
        assertThat(once.occurrences()).extracting(Occurrence::at).containsExactly(at("2030-10-27T00:30:00Z"));
        assertThat(once.occurrences()).extracting(Occurrence::dst).containsExactly(DstEdge.OVERLAP_FIRST);
        DatesSchedule twice = parse(List.of(repeated), null, "twice");
        assertThat(twice.occurrences())
                .extracting(Occurrence::at)
                .containsExactly(at("2030-10-27T00:30:00Z"), at("2030-10-27T01:30:00Z"));
        assertThat(twice.next(at("2030-10-27T00:30:00Z"))).contains(at("2030-10-27T01:30:00Z"));
        assertThat(twice.occurrences())
                .extracting(Occurrence::dst)
                .containsExactly(DstEdge.OVERLAP_FIRST, DstEdge.OVERLAP_SECOND);
    }

    @Test
    void theStoredSpecIsNormalizedWithThePolicyOnlyWhereItApplies() {
        DatesSchedule s = parse(
                List.of(DateSpec.of("2030-06-01T09:00:00+02:00"), DateSpec.local("2030-10-27T02:30", "Europe/Berlin")),
                null,
                null);
        assertThat(s.spec())
                .isEqualTo(spec(
                        List.of(
                                DateSpec.of("2030-06-01T07:00:00Z"),
                                DateSpec.local("2030-10-27T02:30:00", "Europe/Berlin")),
                        "shift",
                        "once"));
        assertThat(parse(List.of(DateSpec.of("2030-06-01T07:00:00Z")), null, null)
                        .spec())
                .isEqualTo(ScheduleSpec.dates(List.of(DateSpec.of("2030-06-01T07:00:00Z")), null));
        assertThat(schedules.parse(s.spec(), NOW, "schedule")).isEqualTo(s);
    }
}
