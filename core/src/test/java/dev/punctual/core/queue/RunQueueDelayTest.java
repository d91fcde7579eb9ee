package dev.punctual.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The SQS delay that makes a message visible a second or two before its run's due time: never late, never negative, capped. */
class RunQueueDelayTest {
    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00.250Z");

    private static int delay(Duration ahead) {
        return RunQueue.delaySeconds(NOW.plus(ahead), NOW);
    }

    @Test
    void isASecondEarlyRoundedDownSoTheMessageIsNeverLate() {
        assertThat(RunQueue.EARLY_DELIVERY).isEqualTo(Duration.ofSeconds(1));
        assertThat(delay(Duration.ofMillis(10_999))).as("visible 1.999 s early").isEqualTo(9);
        assertThat(delay(Duration.ofMillis(11_000))).as("visible 1 s early").isEqualTo(10);
        assertThat(delay(Duration.ofMillis(1_999))).isZero();
        assertThat(delay(Duration.ofMillis(999))).isZero();
    }

    @Test
    void isNeverNegative() {
        assertThat(delay(Duration.ZERO)).isZero();
        assertThat(delay(Duration.ofMillis(-1))).isZero();
        assertThat(delay(Duration.ofMinutes(-30))).isZero();
    }

    @Test
    void isCappedAtTheSqsMaximum() {
        assertThat(RunQueue.MAX_DELAY_SECONDS).isEqualTo(900);
        assertThat(delay(Duration.ofMillis(900_999))).isEqualTo(899);
        assertThat(delay(Duration.ofSeconds(901))).isEqualTo(900);
        assertThat(delay(Duration.ofSeconds(901))).isEqualTo(900);
        assertThat(delay(Duration.ofDays(3))).isEqualTo(900);
    }
}
