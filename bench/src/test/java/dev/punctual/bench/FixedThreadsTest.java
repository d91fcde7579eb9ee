package dev.punctual.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FixedThreadsTest {
    @Test
    void runsWarmupThenExactlyTheMeasuredRunsAndRecordsEveryStep() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        FixedThreads.Measurement m = FixedThreads.measure(3, 5, 40, w -> steps -> {
            calls.incrementAndGet();
            steps.record("half", 1);
        });
        assertThat(calls).hasValue(45);
        assertThat(m.runs()).isEqualTo(40);
        assertThat(m.steps().get(FixedThreads.TOTAL).size()).isEqualTo(40);
        assertThat(m.summary("half").maxNanos()).isEqualTo(1);
        assertThat(m.runsPerSecond()).isPositive();
    }

    @Test
    void theFirstFailureStopsTheWorkersAndIsThrown() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> FixedThreads.measure(2, 0, 1_000_000, w -> steps -> {
            if (calls.incrementAndGet() == 10) {
                throw new IOException("exited with 1");
            }
        })).isInstanceOf(IOException.class).hasMessage("exited with 1");
        assertThat(calls.get()).isLessThan(1_000);
    }
}
