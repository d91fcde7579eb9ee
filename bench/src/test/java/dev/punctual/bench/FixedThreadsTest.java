package dev.punctual.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

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
    void aFailedRunIsCountedByReasonAndTimedWithoutStoppingTheOthers() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        FixedThreads.Measurement m = FixedThreads.measure(2, 0, 30, w -> steps -> {
            if (calls.incrementAndGet() % 3 == 0) {
                throw new FixedThreads.RunFailed("exit 126");
            }
        });
        assertThat(m.failures()).containsExactly(entry("exit 126", 10));
        assertThat(m.failed()).isEqualTo(10);
        assertThat(m.steps().get(FixedThreads.TOTAL).size()).isEqualTo(30);
    }

    @Test
    void theFirstFailureStopsTheWorkersAndIsThrown() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> FixedThreads.measure(2, 0, 1_000_000, w -> steps -> {
                    if (calls.incrementAndGet() == 10) {
                        throw new IOException("exited with 1");
                    }
                }))
                .isInstanceOf(IOException.class)
                .hasMessage("exited with 1");
        assertThat(calls.get()).isLessThan(1_000);
    }
}
