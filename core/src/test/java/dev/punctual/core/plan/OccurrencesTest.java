package dev.punctual.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

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

    @Test
    void skipRunsNoneAndGoesToTheFirstOccurrenceNotMissed() {
        CatchUp skip = new CatchUp(CatchUp.Mode.SKIP, Duration.ofDays(1), 100);
        var s = Occurrences.catchUp(TEN_MINUTES, skip, at(0), at(35), at(36));
        assertThat(s.kept()).isEmpty();
        assertThat(s.count()).isZero();
        assertThat(s.after()).contains(at(40));
    }

    @Test
    void latestRunsTheMostRecentMissedOne() {
        CatchUp latest = new CatchUp(CatchUp.Mode.LATEST, Duration.ofDays(1), 100);
        var s = Occurrences.catchUp(TEN_MINUTES, latest, at(0), at(35), at(36));
        assertThat(s.kept()).containsExactly(at(30));
        assertThat(s.count()).isEqualTo(4);
        assertThat(s.after()).contains(at(40));
    }

    @Test
    void allRunsTheMostRecentMaxRunsOldestFirst() {
        CatchUp all = new CatchUp(CatchUp.Mode.ALL, Duration.ofDays(1), 3);
        var s = Occurrences.catchUp(TEN_MINUTES, all, at(0), at(60), at(61));
        assertThat(s.kept()).containsExactly(at(30), at(40), at(50));
        assertThat(s.count()).isEqualTo(6);
        assertThat(s.after()).contains(at(60));
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
