package dev.punctual.core.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.punctual.core.firing.FiringPolicy;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RunMessageTest {

    @Test
    void roundTrips() {
        RunMessage m = new RunMessage("job_abc", "run_20300101T120000.123Z", Instant.parse("2030-01-01T12:00:00.123Z"));
        assertThat(RunMessage.decode(m.encode())).isEqualTo(m);
    }

    @Test
    void roundTripsItsHint() {
        RunMessage m = new RunMessage(
                "job_abc",
                "20300101T120000Z",
                Instant.parse("2030-01-01T12:00:00Z"),
                new RunMessage.Hint(Duration.ofHours(2)));
        assertThat(m.encode()).contains("\"hint\":{\"overlap\":\"allow\",\"maxRunAge\":\"PT2H\"}");
        assertThat(RunMessage.decode(m.encode())).isEqualTo(m);
    }

    @Test
    void aHintItDoesNotKnowIsIgnoredSoTheJobIsRead() {
        RunMessage m = RunMessage.decode("{\"v\":1,\"jobId\":\"j\",\"runId\":\"r\",\"scheduledAt\":"
                + "\"2030-01-01T00:00:00Z\",\"hint\":{\"overlap\":\"forbid\",\"maxRunAge\":\"PT1H\"}}");
        assertThat(m.hint()).isNull();
        assertThat(RunMessage.Hint.of(FiringPolicy.DEFAULT))
                .isEqualTo(new RunMessage.Hint(FiringPolicy.DEFAULT_MAX_RUN_AGE));
    }

    @Test
    void encodesTheVersion() {
        String body = new RunMessage("j", "r", Instant.parse("2030-01-01T00:00:00Z")).encode();
        assertThat(body).contains("\"v\":" + RunMessage.VERSION);
    }

    @Test
    void acceptsUnknownExtraFields() {
        RunMessage m = RunMessage.decode(
                "{\"v\":1,\"jobId\":\"j\",\"runId\":\"r\",\"scheduledAt\":\"2030-01-01T00:00:00Z\",\"extra\":true}");
        assertThat(m).isEqualTo(new RunMessage("j", "r", Instant.parse("2030-01-01T00:00:00Z")));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"v\":2,\"jobId\":\"j\",\"runId\":\"r\",\"scheduledAt\":\"2030-01-01T00:00:00Z\"}",
                "{\"jobId\":\"j\",\"runId\":\"r\",\"scheduledAt\":\"2030-01-01T00:00:00Z\"}",
                "{\"v\":1,\"runId\":\"r\",\"scheduledAt\":\"2030-01-01T00:00:00Z\"}",
                "{\"v\":1,\"jobId\":\"j\",\"scheduledAt\":\"2030-01-01T00:00:00Z\"}",
                "{\"v\":1,\"jobId\":\"j\",\"runId\":\"r\"}",
                "{\"v\":1,\"jobId\":7,\"runId\":\"r\",\"scheduledAt\":\"2030-01-01T00:00:00Z\"}",
                "{\"v\":1,\"jobId\":\"j\",\"runId\":\"r\",\"scheduledAt\":\"tomorrow\"}",
                "not json at all",
                "{\"v\":1,",
                "[1,2,3]",
                "null",
                ""
            })
    void rejectsAnythingElse(String body) {
        assertThatIllegalArgumentException().isThrownBy(() -> RunMessage.decode(body));
    }
}
