package dev.punctual.core.schedule;

import static dev.punctual.core.schedule.CronSchedules.cron;
import static dev.punctual.core.schedule.CronSchedules.policy;
import static dev.punctual.core.schedule.CronSchedules.transitions;
import static dev.punctual.core.schedule.CronSchedules.walk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.punctual.core.schedule.DstPolicy.Gap;
import dev.punctual.core.schedule.DstPolicy.Overlap;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The DST policies at every transition of 2030–2031 in three zones: New York and London (one-hour shifts, at
 * different local times) and Lord Howe (a 30-minute shift). A daily cron at a wall-clock time inside the gap, and
 * one inside the overlap, under each policy value; then dense expressions across the same transitions.
 */
class CronDstPolicyTest {
    private static final Instant FROM = Instant.parse("2030-01-01T00:00:00Z");
    private static final Instant TO = Instant.parse("2032-01-01T00:00:00Z");

    /** zone, a local time inside its spring-forward gap, a local time inside its fall-back overlap. */
    static Stream<Arguments> zones() {
        return Stream.of(
                Arguments.of("America/New_York", LocalTime.of(2, 30), LocalTime.of(1, 30)),
                Arguments.of("Europe/London", LocalTime.of(1, 30), LocalTime.of(1, 30)),
                Arguments.of("Australia/Lord_Howe", LocalTime.of(2, 15), LocalTime.of(1, 45)));
    }

    /** A test run once for each of {@link #zones()}, given the zone (as a ZoneId) and its two local times. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @ParameterizedTest
    @MethodSource("dev.punctual.core.schedule.CronDstPolicyTest#zones")
    @interface InEachZone {}

    private static String daily(LocalTime t) {
        return t.getMinute() + " " + t.getHour() + " * * *";
    }

    /** The occurrences of the day (local date) of the transition, plus the days either side. */
    private static List<Occurrence> around(Schedule s, ZoneOffsetTransition t) {
        return walk(s, t.getInstant().minus(Duration.ofDays(2)), t.getInstant().plus(Duration.ofDays(2)), 100);
    }

    /** The zone's spring-forward transitions in 2030–2031: one a year. */
    private static List<ZoneOffsetTransition> gaps(ZoneId zone) {
        return twoOf(zone, ZoneOffsetTransition::isGap);
    }

    /** The zone's fall-back transitions in 2030–2031: one a year. */
    private static List<ZoneOffsetTransition> overlaps(ZoneId zone) {
        return twoOf(zone, ZoneOffsetTransition::isOverlap);
    }

    private static List<ZoneOffsetTransition> twoOf(ZoneId zone, Predicate<ZoneOffsetTransition> kind) {
        List<ZoneOffsetTransition> found =
                transitions(zone, FROM, TO).stream().filter(kind).toList();
        assertThat(found).hasSize(2);
        return found;
    }

    private static List<Occurrence> onDate(List<Occurrence> occ, ZoneId zone, LocalDate date) {
        return occ.stream()
                .filter(o -> o.at().atZone(zone).toLocalDate().equals(date))
                .toList();
    }

    @InEachZone
    void gapShiftRunsAtTheFirstInstantAfterTheGap(ZoneId zone, LocalTime inGap, LocalTime inOverlap) {
        CronSchedule s = cron(daily(inGap), zone.getId(), policy(Gap.SHIFT, Overlap.ONCE));
        for (ZoneOffsetTransition t : gaps(zone)) {
            LocalDate day = t.getDateTimeBefore().toLocalDate();
            assertThat(zone.getRules().getValidOffsets(day.atTime(inGap)))
                    .as("really in the gap")
                    .isEmpty();
            List<Occurrence> occ = around(s, t);
            assertThat(onDate(occ, zone, day))
                    .as("%s %s", zone, t)
                    .singleElement()
                    .satisfies(o -> {
                        assertThat(o.at()).isEqualTo(t.getInstant());
                        assertThat(o.at().atZone(zone).toLocalTime())
                                .isEqualTo(t.getDateTimeAfter().toLocalTime());
                        assertThat(o.dst()).isEqualTo(DstEdge.GAP_SHIFTED);
                    });
            // The days either side are ordinary.
            assertThat(onDate(occ, zone, day.minusDays(1)))
                    .singleElement()
                    .satisfies(
                            o -> assertThat(o.at().atZone(zone).toLocalTime()).isEqualTo(inGap))
                    .satisfies(o -> assertThat(o.dst()).isNull());
            assertThat(onDate(occ, zone, day.plusDays(1)))
                    .singleElement()
                    .satisfies(
                            o -> assertThat(o.at().atZone(zone).toLocalTime()).isEqualTo(inGap));
        }
    }

    @InEachZone
    void gapSkipHasNoRunThatDay(ZoneId zone, LocalTime inGap, LocalTime inOverlap) {
        CronSchedule s = cron(daily(inGap), zone.getId(), policy(Gap.SKIP, Overlap.ONCE));
        for (ZoneOffsetTransition t : gaps(zone)) {
            LocalDate day = t.getDateTimeBefore().toLocalDate();
            List<Occurrence> occ = around(s, t);
            assertThat(onDate(occ, zone, day)).as("%s %s", zone, t).isEmpty();
            assertThat(onDate(occ, zone, day.minusDays(1))).hasSize(1);
            assertThat(onDate(occ, zone, day.plusDays(1))).hasSize(1);
            // From just before the gap, the next occurrence is the next day's.
            assertThat(s.next(t.getInstant().minusSeconds(1))
                            .orElseThrow()
                            .atZone(zone)
                            .toLocalDateTime())
                    .isEqualTo(day.plusDays(1).atTime(inGap));
        }
    }

    @InEachZone
    void overlapOnceRunsAtTheFirstInstantOnly(ZoneId zone, LocalTime inGap, LocalTime inOverlap) {
        CronSchedule s = cron(daily(inOverlap), zone.getId(), policy(Gap.SHIFT, Overlap.ONCE));
        for (ZoneOffsetTransition t : overlaps(zone)) {
            LocalDateTime local = t.getDateTimeAfter().toLocalDate().atTime(inOverlap);
            assertThat(zone.getRules().getValidOffsets(local))
                    .as("really repeated")
                    .hasSize(2);
            List<Occurrence> occ = around(s, t);
            assertThat(onDate(occ, zone, local.toLocalDate()))
                    .as("%s %s", zone, t)
                    .singleElement()
                    .satisfies(o -> {
                        assertThat(o.at()).isEqualTo(local.toInstant(t.getOffsetBefore()));
                        assertThat(o.dst()).isEqualTo(DstEdge.OVERLAP_FIRST);
                    });
            // After the first instant, the next is tomorrow's: the repeat is not a new occurrence.
            Instant first = local.toInstant(t.getOffsetBefore());
            assertThat(s.next(first).orElseThrow().atZone(zone).toLocalDateTime())
                    .isEqualTo(local.plusDays(1));
            // Asked from inside the repeated hour (second pass), it does not run that local time again either.
            assertThat(s.first(local.toInstant(t.getOffsetAfter()).minusSeconds(60))
                            .orElseThrow()
                            .atZone(zone)
                            .toLocalDateTime())
                    .isEqualTo(local.plusDays(1));
        }
    }

    @InEachZone
    void overlapTwiceRunsAtBothInstantsOneShiftApart(ZoneId zone, LocalTime inGap, LocalTime inOverlap) {
        CronSchedule s = cron(daily(inOverlap), zone.getId(), policy(Gap.SHIFT, Overlap.TWICE));
        for (ZoneOffsetTransition t : overlaps(zone)) {
            LocalDateTime local = t.getDateTimeAfter().toLocalDate().atTime(inOverlap);
            List<Occurrence> day = onDate(around(s, t), zone, local.toLocalDate());
            assertThat(day)
                    .as("%s %s", zone, t)
                    .extracting(Occurrence::at)
                    .containsExactly(local.toInstant(t.getOffsetBefore()), local.toInstant(t.getOffsetAfter()));
            assertThat(day).extracting(Occurrence::dst).containsExactly(DstEdge.OVERLAP_FIRST, DstEdge.OVERLAP_SECOND);
            assertThat(Duration.between(day.get(0).at(), day.get(1).at()))
                    .isEqualTo(t.getDuration().negated());
            assertThat(s.next(day.get(0).at())).contains(day.get(1).at());
        }
    }

    @InEachZone
    void everyMinuteCoversEachRealMinuteOnceAcrossEveryTransition(ZoneId zone, LocalTime inGap, LocalTime inOverlap) {
        for (ZoneOffsetTransition t : transitions(zone, FROM, TO)) {
            Instant a = t.getInstant().minus(Duration.ofMinutes(90));
            Instant b = t.getInstant().plus(Duration.ofMinutes(90));
            for (Gap gap : Gap.values()) {
                // Once: the wall clock's repeated minutes are not run again, so an overlap leaves a hole as long
                // as the shift; twice: every real minute runs. A gap never leaves a hole in real time.
                List<Occurrence> once = walk(cron("* * * * *", zone.getId(), policy(gap, Overlap.ONCE)), a, b, 1000);
                List<Occurrence> twice = walk(cron("* * * * *", zone.getId(), policy(gap, Overlap.TWICE)), a, b, 1000);
                List<Instant> everyMinute = Stream.iterate(a, x -> !x.isAfter(b), x -> x.plusSeconds(60))
                        .toList();
                assertThat(twice)
                        .as("%s %s %s", zone, t, gap)
                        .extracting(Occurrence::at)
                        .containsExactlyElementsOf(everyMinute);
                if (t.isGap()) {
                    assertThat(once).extracting(Occurrence::at).containsExactlyElementsOf(everyMinute);
                    Occurrence atGap = once.stream()
                            .filter(o -> o.at().equals(t.getInstant()))
                            .findFirst()
                            .orElseThrow();
                    assertThat(atGap.dst()).isEqualTo(gap == Gap.SHIFT ? DstEdge.GAP_SHIFTED : null);
                } else {
                    long hole = t.getDuration().negated().toMinutes();
                    assertThat(once).hasSize(everyMinute.size() - (int) hole);
                    assertThat(once)
                            .extracting(Occurrence::at)
                            .noneMatch(x -> !x.isBefore(t.getInstant())
                                    && x.isBefore(
                                            t.getInstant().plus(t.getDuration().negated())));
                }
            }
        }
    }

    @InEachZone
    void everyTenSecondsWithTwiceRunsBothPassesOfTheRepeatedHourInOrder(
            ZoneId zone, LocalTime inGap, LocalTime inOverlap) {
        for (ZoneOffsetTransition t : overlaps(zone)) {
            Instant a = t.getInstant().minus(Duration.ofMinutes(70));
            Instant b = t.getInstant().plus(Duration.ofMinutes(70));
            List<Occurrence> occ =
                    walk(cron("*/10 * * * * *", zone.getId(), policy(Gap.SHIFT, Overlap.TWICE)), a, b, 2000);
            assertThat(occ)
                    .extracting(Occurrence::at)
                    .containsExactlyElementsOf(Stream.iterate(a, x -> !x.isAfter(b), x -> x.plusSeconds(10))
                            .toList());
            assertThat(occ.stream().filter(o -> o.dst() == DstEdge.OVERLAP_SECOND))
                    .hasSize((int) t.getDuration().negated().toSeconds() / 10);
        }
    }

    @InEachZone
    void shiftedGapTimesCollapseIntoOneRunWithAGenuineMatchAtTheSameInstant(
            ZoneId zone, LocalTime inGap, LocalTime inOverlap) {
        // Every 15 minutes: several local times fall in the gap, and the first valid local time matches too.
        CronSchedule s = cron("*/15 * * * *", zone.getId(), policy(Gap.SHIFT, Overlap.ONCE));
        for (ZoneOffsetTransition t : gaps(zone)) {
            List<Occurrence> occ = walk(
                    s,
                    t.getInstant().minus(Duration.ofMinutes(30)),
                    t.getInstant().plus(Duration.ofMinutes(30)),
                    100);
            assertThat(occ)
                    .extracting(Occurrence::at)
                    .containsExactly(
                            t.getInstant().minus(Duration.ofMinutes(30)),
                            t.getInstant().minus(Duration.ofMinutes(15)),
                            t.getInstant(),
                            t.getInstant().plus(Duration.ofMinutes(15)),
                            t.getInstant().plus(Duration.ofMinutes(30)));
            assertThat(occ.get(2).dst()).isEqualTo(DstEdge.GAP_SHIFTED);
        }
    }

    @Test
    void anExpressionThatOnlyEverMatchesInsideTheGapHasNoOccurrenceUnderSkipAndTheSearchEnds() {
        // The second Sunday of March at 02:30 is always inside New York's spring-forward gap.
        String expression = "30 2 ? 3 0#2";
        assertTimeoutPreemptively(
                Duration.ofSeconds(5),
                () -> assertThat(cron(expression, "America/New_York", policy(Gap.SKIP, Overlap.ONCE))
                                .first(FROM))
                        .isEmpty());
        assertThat(cron(expression, "America/New_York", policy(Gap.SHIFT, Overlap.ONCE))
                        .first(FROM))
                .contains(Instant.parse("2030-03-10T07:00:00Z"));
        assertThat(cron(expression, "Europe/London", policy(Gap.SKIP, Overlap.ONCE))
                        .first(FROM))
                .contains(Instant.parse("2030-03-10T02:30:00Z"));
    }
}
