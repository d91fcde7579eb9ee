package dev.punctual.core.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class InstantsTest {

    @Test
    void fixedIsMillisecondPrecisionUtcWithPaddedFields() {
        assertThat(Instants.fixed(Instant.parse("2030-01-02T03:04:05Z"))).isEqualTo("2030-01-02T03:04:05.000Z");
        assertThat(Instants.fixed(Instant.parse("2030-01-02T03:04:05.123456789Z")))
                .isEqualTo("2030-01-02T03:04:05.123Z");
    }

    @Test
    void compactHasNoSeparators() {
        assertThat(Instants.compact(Instant.parse("2030-01-02T03:04:05.067Z"))).isEqualTo("20300102T030405.067Z");
    }

    @Test
    void millisTruncatesSubMillisecondPrecision() {
        assertThat(Instants.millis(Instant.parse("2030-01-02T03:04:05.123999Z")))
                .isEqualTo(Instant.parse("2030-01-02T03:04:05.123Z"));
    }

    @Test
    void parsesInstantsWithZOrAnOffset() {
        assertThat(Instants.parseOrNull("2030-01-01T09:00:00Z")).isEqualTo(Instant.parse("2030-01-01T09:00:00Z"));
        assertThat(Instants.parseOrNull("2030-01-01T09:00:00+02:00")).isEqualTo(Instant.parse("2030-01-01T07:00:00Z"));
        assertThat(Instants.parseOrNull("2030-01-01T09:00:00.250-05:30"))
                .isEqualTo(Instant.parse("2030-01-01T14:30:00.250Z"));
    }

    @Test
    void returnsNullForAnythingElse() {
        assertThat(Instants.parseOrNull(null)).isNull();
        assertThat(Instants.parseOrNull("")).isNull();
        assertThat(Instants.parseOrNull("tomorrow")).isNull();
        assertThat(Instants.parseOrNull("2030-01-01T09:00:00")).as("no offset").isNull();
        assertThat(Instants.parseOrNull("2030-01-01")).isNull();
        assertThat(Instants.parseOrNull("2030-13-01T09:00:00Z")).isNull();
    }
}
