package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.config.Execution;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * When a run's launch is written: a second after its start, unless its lease leaves less than that before the
 * supervisor's deadline, in which case half the time left, so the launch lands (and moves the deadline) before it.
 */
class LaunchDelayTest {
    private static final Instant NOW = Instant.parse("2026-03-14T09:26:53.589Z");
    private static final Duration LEASE = Duration.ofSeconds(4);

    private final LeaseKeeper keeper = new LeaseKeeper(
            null,
            null,
            new Execution(LEASE, Duration.ofSeconds(1), Duration.ZERO, Duration.ZERO, 1),
            Clock.fixed(NOW, ZoneOffset.UTC),
            "ex-1",
            null);

    @Test
    void aRunStartedEarlyInItsLeaseWaitsTheWholeDelay() {
        // The claim's lease: a lease and the delay from the run's instant.
        assertThat(keeper.launchDelay(NOW.plus(LEASE).plus(LeaseKeeper.LAUNCH_DELAY)))
                .isEqualTo(LeaseKeeper.LAUNCH_DELAY);
    }

    @Test
    void aRunStartedLateInItsLeaseIsLaunchedBeforeTheSupervisorsDeadline() {
        Duration margin = Supervisor.margin(LEASE);
        // 900 ms before the deadline (scenario 14: the job's read retried for 3.1 s through an outage).
        Instant leaseEnd = NOW.plus(margin).plusMillis(900);
        assertThat(keeper.launchDelay(leaseEnd)).isEqualTo(Duration.ofMillis(450));
        // At or past it: at once (the start's own check keeps a run from starting past it).
        assertThat(keeper.launchDelay(NOW.plus(margin))).isZero();
        assertThat(keeper.launchDelay(NOW)).isZero();
    }
}
