package dev.punctual.bench.compare.peers;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PeerContenderTest {
    @Test
    void aPollIntervalIsNamedInItsShortestExactForm() {
        assertThat(PeerContender.text(Duration.ofSeconds(1))).isEqualTo("1 s");
        assertThat(PeerContender.text(Duration.ofMillis(1500))).isEqualTo("1500 ms");
    }
}
