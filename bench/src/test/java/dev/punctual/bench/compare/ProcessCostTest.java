package dev.punctual.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessCostTest {
    @Test
    void anExecutorsThreadsAreToldApartByName() {
        assertThat(ProcessCost.threadPart("ForkJoinPool-1-w")).startsWith("virtual threads");
        assertThat(ProcessCost.threadPart("run-3")).isEqualTo("run threads");
        assertThat(ProcessCost.threadPart("run-watch-bench")).isEqualTo("other threads");
        assertThat(ProcessCost.threadPart("receiver-normal")).isEqualTo("receives and deletes");
        assertThat(ProcessCost.threadPart("C1 CompilerThre")).isEqualTo("JIT, GC and VM");
        assertThat(ProcessCost.threadPart("main")).isEqualTo("other threads");
    }

    @Test
    void theJvmsPartsSumToWhatTheProcessUsed() {
        ProcessHandle self = ProcessHandle.current();
        // Some CPU of this JVM's own, so that there is something to split.
        long x = 0;
        for (int i = 0; i < 50_000_000; i++) {
            x += i % 7;
        }
        Map<String, Long> parts = ProcessCost.executorParts(self);
        long sum = parts.values().stream().mapToLong(Long::longValue).sum();
        assertThat(x).isPositive();
        assertThat(parts).containsKey("JVM: other threads");
        // The process's own ticks, its reaped children's and its live descendants' trees, as cpuSeconds counts them
        // (read a moment apart: within a few ticks).
        assertThat(sum)
                .isCloseTo(
                        Math.round(ProcessCost.cpuSeconds(java.util.List.of(self)) * 100),
                        org.assertj.core.data.Offset.offset(20L));
    }
}
