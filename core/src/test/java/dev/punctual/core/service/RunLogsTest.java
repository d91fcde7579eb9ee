package dev.punctual.core.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A running log is answered up to a character boundary: a UTF-8 sequence cut short waits for the next read. */
class RunLogsTest {
    @Test
    void aSequenceCutShortAtTheEndIsLeftForTheNextRead() {
        byte[] text = "a€😀".getBytes(StandardCharsets.UTF_8); // 1 + 3 + 4 bytes
        assertThat(RunLogs.completeCharacters(text)).isEqualTo(8);
        for (int cut = 5; cut < 8; cut++) {
            assertThat(RunLogs.completeCharacters(Arrays.copyOf(text, cut)))
                    .as("cut at %d", cut)
                    .isEqualTo(4);
        }
        for (int cut = 2; cut < 4; cut++) {
            assertThat(RunLogs.completeCharacters(Arrays.copyOf(text, cut)))
                    .as("cut at %d", cut)
                    .isEqualTo(1);
        }
        assertThat(RunLogs.completeCharacters(new byte[0])).isZero();
    }

    @Test
    void bytesThatAreNoUtf8AreAnsweredAsTheyAre() {
        // Continuation bytes with no lead byte: nothing to wait for.
        assertThat(RunLogs.completeCharacters(new byte[] {'a', (byte) 0x80, (byte) 0x80, (byte) 0x80}))
                .isEqualTo(4);
    }

    @Test
    void aWaitingReadLooksAgainAtHalfTheChunkIntervalWithinOneToFiveSeconds() {
        assertThat(RunLogs.poll(Duration.ofSeconds(5))).isEqualTo(Duration.ofMillis(2500));
        assertThat(RunLogs.poll(Duration.ofMillis(200))).isEqualTo(Duration.ofSeconds(1));
        assertThat(RunLogs.poll(Duration.ZERO)).isEqualTo(Duration.ofSeconds(1));
        assertThat(RunLogs.poll(Duration.ofMinutes(1))).isEqualTo(Duration.ofSeconds(5));
    }
}
