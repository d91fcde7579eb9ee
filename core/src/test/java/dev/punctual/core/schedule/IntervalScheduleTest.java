package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Where an interval's occurrences fall: start + k·every, up to and including end. */
class IntervalScheduleTest {
    private static final Instant START = Instant.parse("2030-01-01T12:00:00Z");
    private static final Duration EVERY = Duration.ofSeconds(30);

    private static Schedule.Interval interval(Instant end) {
        return new Schedule.Interval(EVERY, START, end);
    }

    @Test
    void startInTheFutureIsTheFirstOccurrence() {
        assertThat(interval(null).first(START.minus(Duration.ofHours(3)))).contains(START);
        assertThat(interval(null).first(START)).contains(START);
    }

    @Test
    void betweenOccurrencesTheFirstIsTheNextBoundary() {
        assertThat(interval(null).first(START.plusMillis(1))).contains(START.plusSeconds(30));
        assertThat(interval(null).first(START.plusSeconds(29))).contains(START.plusSeconds(30));
        assertThat(interval(null).first(START.plusSeconds(31))).contains(START.plusSeconds(60));
    }

    @Test
    void onABoundaryTheFirstIsThatBoundary() {
        assertThat(interval(null).first(START.plusSeconds(90))).contains(START.plusSeconds(90));
    }

    @Test
    void nextStepsByExactlyEvery() {
        Schedule.Interval s = interval(null);
        Instant t = s.first(START).orElseThrow();
        for (int i = 1; i <= 100; i++) {
            Instant n = s.next(t).orElseThrow();
            assertThat(Duration.between(t, n)).isEqualTo(EVERY);
            t = n;
        }
        assertThat(t).isEqualTo(START.plus(EVERY.multipliedBy(100)));
    }

    @Test
    void nextOfAnInstantBeforeStartIsStart() {
        assertThat(interval(null).next(START.minusSeconds(1))).contains(START);
    }

    @Test
    void nextOfAnUnalignedInstantIsTheFollowingBoundary() {
        assertThat(interval(null).next(START.plusSeconds(45))).contains(START.plusSeconds(60));
    }

    @Test
    void endIsInclusiveAndNothingFollowsIt() {
        Instant end = START.plusSeconds(90);
        Schedule.Interval s = interval(end);
        assertThat(s.next(START.plusSeconds(60))).contains(end);
        assertThat(s.next(end)).isEmpty();
        assertThat(s.first(end)).contains(end);
        assertThat(s.first(end.plusMillis(1))).isEmpty();
    }

    @Test
    void endBetweenBoundariesCutsAfterTheLastOneBeforeIt() {
        Schedule.Interval s = interval(START.plusSeconds(75));
        assertThat(s.next(START.plusSeconds(30))).contains(START.plusSeconds(60));
        assertThat(s.next(START.plusSeconds(60))).isEmpty();
        assertThat(s.first(START.plusSeconds(61))).isEmpty();
    }

    @Test
    void firstIsAlignedAndNotEarlyForRandomIntervals() {
        Random random = new Random(20300101L);
        for (int i = 0; i < 500; i++) {
            Duration every = Duration.ofSeconds(5 + random.nextInt(86_400));
            Instant start = START.plusMillis(random.nextInt(1000));
            // now from a day before start to 30 days after, millisecond precision.
            Instant now = start.plusMillis(random.nextLong(-86_400_000L, 30L * 86_400_000L));
            Schedule.Interval s = new Schedule.Interval(every, start, null);

            Instant first = s.first(now).orElseThrow();
            String ctx = "every=" + every + " start=" + start + " now=" + now + " first=" + first;
            assertThat(first).as(ctx).isAfterOrEqualTo(now);
            if (!first.equals(start)) {
                assertThat(first.minus(every)).as(ctx).isBefore(now);
            }
            assertThat(Duration.between(start, first).toMillis() % every.toMillis())
                    .as(ctx)
                    .isZero();
            assertThat(first).as(ctx).isAfterOrEqualTo(start);
            // next() continues the same grid.
            assertThat(s.next(first)).as(ctx).contains(first.plus(every));
        }
    }

    @Test
    void firstIsNotBeforeANowWithSubMillisecondPrecision() {
        Instant now = START.plusSeconds(30).plusNanos(300_000);
        assertThat(interval(null).first(now).orElseThrow()).isAfterOrEqualTo(now);
    }
}
