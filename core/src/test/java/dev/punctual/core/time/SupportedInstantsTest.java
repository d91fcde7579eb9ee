package dev.punctual.core.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class SupportedInstantsTest {

    @Test
    void theSupportedRangeIsTheEpochToTheEndOfYear9999() {
        assertThat(Instants.supported(Instant.parse("1970-01-01T00:00:00Z"))).isTrue();
        assertThat(Instants.supported(Instant.parse("9999-12-31T23:59:59.999Z")))
                .isTrue();
        assertThat(Instants.supported(Instant.parse("1969-12-31T23:59:59.999Z")))
                .isFalse();
        assertThat(Instants.supported(Instant.parse("+10000-01-01T00:00:00Z"))).isFalse();
        assertThat(Instants.supported(Instant.MIN)).isFalse();
        assertThat(Instants.supported(Instant.MAX)).isFalse();
    }

    @Test
    void runIdsOfSupportedInstantsSortInTimeOrder() {
        assertThat(Instants.compact(Instants.MAX_SUPPORTED))
                .isEqualTo("99991231T235959.999Z")
                .isGreaterThan(Instants.compact(Instants.MIN_SUPPORTED));
    }
}
