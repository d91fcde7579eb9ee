package dev.punctual.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.time.Window;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Where a watch's next window goes, whatever time its check comes at. */
class ExpectationTest {
    private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");
    private static final Schedules SCHEDULES = new Schedules(Duration.ofSeconds(1));
    private static final Expectation EVERY_30M = new Expectation(Duration.ofMinutes(30), null);

    @Test
    void aSuccessMovesTheWindowToAPeriodAfterIt() {
        Window checked = new Window(T0, T0.plus(Duration.ofMinutes(30)));
        Instant success = T0.plus(Duration.ofMinutes(20));

        assertThat(EVERY_30M.next(checked, Optional.of(success), T0.plus(Duration.ofMinutes(31)), SCHEDULES, T0))
                .contains(new Window(success, success.plus(Duration.ofMinutes(30))));
    }

    @Test
    void aLateCheckWhoseSuccessPeriodIsAlsoOverIsDueNowNotInThePast() {
        Window checked = new Window(T0, T0.plus(Duration.ofMinutes(30)));
        Instant success = T0.plus(Duration.ofMinutes(20));
        Instant late = T0.plus(Duration.ofMinutes(100));

        assertThat(EVERY_30M.next(checked, Optional.of(success), late, SCHEDULES, T0))
                .contains(new Window(success, late));
    }

    @Test
    void noSuccessKeepsTheStartAndComesBackAPeriodLater() {
        Window checked = new Window(T0, T0.plus(Duration.ofMinutes(30)));
        Instant now = T0.plus(Duration.ofMinutes(31));

        assertThat(EVERY_30M.next(checked, Optional.empty(), now, SCHEDULES, T0))
                .contains(new Window(T0, now.plus(Duration.ofMinutes(30))));
    }

    @Test
    void deadlinesThatPassedDuringAnOutageAreSteppedOver() {
        Expectation hourly = new Expectation(
                null, ScheduleSpec.interval("PT1H", T0.plus(Duration.ofHours(1)).toString(), null));
        Window checked = new Window(T0, T0.plus(Duration.ofHours(1)));
        Instant now = T0.plus(Duration.ofMinutes(250));

        assertThat(hourly.next(checked, Optional.empty(), now, SCHEDULES, T0))
                .contains(new Window(T0.plus(Duration.ofHours(4)), T0.plus(Duration.ofHours(5))));
    }

    @Test
    void aOneTimeDeadlineHasNoWindowAfterIt() {
        Expectation once = new Expectation(
                null, ScheduleSpec.once(T0.plus(Duration.ofHours(1)).toString()));

        assertThat(once.first(T0, SCHEDULES, T0)).contains(new Window(T0, T0.plus(Duration.ofHours(1))));
        assertThat(once.next(
                        new Window(T0, T0.plus(Duration.ofHours(1))),
                        Optional.empty(),
                        T0.plus(Duration.ofMinutes(61)),
                        SCHEDULES,
                        T0))
                .isEmpty();
    }
}
