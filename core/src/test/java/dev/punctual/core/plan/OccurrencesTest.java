package dev.punctual.core.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The occurrence rules of catch-up and "the first occurrence left to run", without any table. */
class OccurrencesTest {
    private static final Instant T0 = Instant.parse("2026-11-23T00:00:00Z");
    /** Every 10 minutes from T0, ending at T0 + 2 h (13 occurrences). */
    private static final Schedule TEN_MINUTES =
            new Schedule.Interval(Duration.ofMinutes(10), T0, T0.plus(Duration.ofHours(2)));

    private static Instant at(int minutes) {
        return T0.plus(Duration.ofMinutes(minutes));
    }

    @Test
    void firstFreeSkipsTakenOccurrencesAndStopsAtTheEnd() {
        Set<Instant> taken = Set.of(at(0), at(10), at(30));
        assertThat(Occurrences.firstFree(TEN_MINUTES, Optional.of(at(0)), taken::contains))
                .contains(at(20));
        assertThat(Occurrences.firstFree(TEN_MINUTES, Optional.of(at(30)), taken::contains))
                .contains(at(40));
        assertThat(Occurrences.firstFree(TEN_MINUTES, Optional.of(at(110)), t -> true))
                .as("every occurrence left is taken")
                .isEmpty();
        assertThat(Occurrences.firstFree(TEN_MINUTES, Optional.empty(), t -> false))
                .isEmpty();
    }

    /** Each policy, missed occurrences from T0 to {@code to}, asked at {@code now} (all in minutes after T0). */
    static Stream<Arguments> policies() {
        return Stream.of(
                argumentSet(
                        "skip runs none and goes to the first occurrence not missed",
                        CatchUp.Mode.SKIP,
                        100,
                        35,
                        36,
                        List.of(),
                        0,
                        40),
                argumentSet(
                        "latest runs the most recent missed one", CatchUp.Mode.LATEST, 100, 35, 36, List.of(30), 4, 40),
                argumentSet(
                        "all runs the most recent maxRuns, oldest first",
                        CatchUp.Mode.ALL,
                        3,
                        60,
                        61,
                        List.of(30, 40, 50),
                        6,
                        60));
    }

    @ParameterizedTest
    @MethodSource("policies")
    void eachPolicyKeepsItsShareOfTheMissedOccurrences(
            CatchUp.Mode mode, int maxRuns, int to, int now, List<Integer> kept, int count, int after) {
        CatchUp policy = new CatchUp(mode, Duration.ofDays(1), maxRuns);
        var s = Occurrences.catchUp(TEN_MINUTES, policy, at(0), at(to), at(now));
        assertThat(s.kept())
                .containsExactlyElementsOf(
                        kept.stream().map(OccurrencesTest::at).toList());
        assertThat(s.count()).isEqualTo(count);
        assertThat(s.after()).contains(at(after));
    }

    @Test
    void nothingOlderThanMaxAgeBeforeNowCounts() {
        CatchUp all = new CatchUp(CatchUp.Mode.ALL, Duration.ofMinutes(25), 100);
        // now = 60: maxAge reaches back to 35, so 40 and 50 are missed within it.
        var s = Occurrences.catchUp(TEN_MINUTES, all, at(0), at(60), at(60));
        assertThat(s.kept()).containsExactly(at(40), at(50));
        assertThat(s.count()).isEqualTo(2);
    }

    @Test
    void fromIsCountedWhenItIsAnOccurrenceAndTheEndOfTheScheduleEndsTheWalk() {
        CatchUp all = new CatchUp(CatchUp.Mode.ALL, Duration.ofDays(1), 100);
        var s = Occurrences.catchUp(TEN_MINUTES, all, at(100), at(500), at(500));
        assertThat(s.kept()).containsExactly(at(100), at(110), at(120));
        assertThat(s.after()).as("the schedule has ended").isEmpty();
        var none = Occurrences.catchUp(TEN_MINUTES, all, at(41), at(50), at(50));
        assertThat(none.kept()).isEmpty();
        assertThat(none.after()).contains(at(50));
        assertThat(List.of(none.count())).containsExactly(0);
    }
}
