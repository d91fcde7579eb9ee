package dev.punctual.bench.compare.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
    @Test
    void shortForms() {
        assertThat(Durations.parse("1s")).isEqualTo(Duration.ofSeconds(1));
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse(" 2 m ")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("1h")).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void isoForm() {
        assertThat(Durations.parse("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void rejectsTheRest() {
        assertThatThrownBy(() -> Durations.parse("1 sec")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Durations.parse("-1s")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void formatsExactly() {
        assertThat(Durations.format(Duration.ofSeconds(1))).isEqualTo("1 s");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500 ms");
    }
}
