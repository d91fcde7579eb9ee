package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.Transition;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The line an executor logs for each run transition: readable text, or one JSON object. */
class RunEventTest {
    private static final Instant AT = Instant.parse("2026-11-24T10:00:00.250Z");

    @Test
    void aStartIsOneJsonObjectWithItsLatenessAndLane() throws Exception {
        RunEvent started = new RunEvent(AT, "job_a", "r1", 2, RunEvent.STARTED, "ex-1", 12L, null, null, "high");
        JsonNode json = new ObjectMapper().readTree(started.line(true));
        assertThat(json.get("event").asText()).isEqualTo("run");
        assertThat(json.get("state").asText()).isEqualTo("STARTED");
        assertThat(json.get("attempt").asInt()).isEqualTo(2);
        assertThat(json.get("latenessMs").asLong()).isEqualTo(12);
        assertThat(json.get("executorId").asText()).isEqualTo("ex-1");
        assertThat(json.get("lane").asText()).isEqualTo("high");
        assertThat(json.has("exitCode")).isFalse();
        assertThat(started.line(false))
                .isEqualTo("run STARTED job=job_a run=r1 attempt=2 executor=ex-1 latenessMs=12 lane=high");
    }

    @Test
    void anOutcomeTakesItsStateFromTheTransitionAndQuotesAnErrorWithSpaces() throws Exception {
        Run run = Run.scheduled("job_a", "r1", "owner", AT, 3, AT);
        RunEvent failed = RunEvent.of(
                Change.of(Transition.FAIL, run, AT).withExitCode(3).withError("exited with code 3"), "ex-1");
        assertThat(failed.state()).isEqualTo("FAILED");
        assertThat(failed.line(false))
                .isEqualTo("run FAILED job=job_a run=r1 attempt=0 executor=ex-1 exitCode=3"
                        + " error=\"exited with code 3\"");
        JsonNode json = new ObjectMapper().readTree(failed.line(true));
        assertThat(json.get("exitCode").asInt()).isEqualTo(3);
        assertThat(json.get("error").asText()).isEqualTo("exited with code 3");
        assertThat(RunEvent.of(Change.of(Transition.DIE, run, AT), "ex-1").state())
                .isEqualTo("DEAD");
    }
}
