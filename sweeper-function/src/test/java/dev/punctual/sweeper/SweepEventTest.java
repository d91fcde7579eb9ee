package dev.punctual.sweeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.core.sweep.Sweeper;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which shards an invocation sweeps, from its EventBridge target's input. */
class SweepEventTest {
    @Test
    void aTargetsWorkerAndWorkersChooseItsShards() {
        assertThat(SweepHandler.worker(Map.of("worker", 1, "workers", 4))).isEqualTo(new Sweeper.Worker(1, 4));
        // EventBridge passes the input as written: numbers as text are read too.
        assertThat(SweepHandler.worker(Map.of("worker", "0", "workers", "2"))).isEqualTo(new Sweeper.Worker(0, 2));
    }

    @Test
    void anEventWithoutThemSweepsEveryShard() {
        Map<String, Object> scheduled = new HashMap<>();
        scheduled.put("detail-type", "Scheduled Event");
        assertThat(SweepHandler.worker(scheduled)).isEqualTo(Sweeper.Worker.ALL);
        assertThat(SweepHandler.worker(null)).isEqualTo(Sweeper.Worker.ALL);
    }

    @Test
    void halfAWorkerOrOneOutOfRangeIsRefused() {
        assertThatThrownBy(() -> SweepHandler.worker(Map.of("worker", 1))).hasMessageContaining("both");
        assertThatThrownBy(() -> SweepHandler.worker(Map.of("worker", 4, "workers", 4)))
                .hasMessageContaining("0 to 3 of 4");
    }
}
