package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When a running attempt's output is shipped: only new bytes, at the interval, sooner when many wait. */
class LogShipperTest {
    private static final Duration INTERVAL = Duration.ofSeconds(5);

    @Test
    void nothingNewIsNeverShipped() {
        assertThat(LogShipper.due(0, Duration.ofHours(1), INTERVAL)).isFalse();
    }

    @Test
    void newOutputWaitsForTheIntervalSinceTheStartOrTheLastChunk() {
        assertThat(LogShipper.due(10, Duration.ofMillis(4999), INTERVAL)).isFalse();
        assertThat(LogShipper.due(10, INTERVAL, INTERVAL)).isTrue();
    }

    @Test
    void manyWaitingBytesGoAtOnce() {
        assertThat(LogShipper.due(LogShipper.EARLY_BYTES - 1, Duration.ZERO, INTERVAL))
                .isFalse();
        assertThat(LogShipper.due(LogShipper.EARLY_BYTES, Duration.ZERO, INTERVAL))
                .isTrue();
    }
}
