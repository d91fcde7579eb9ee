package dev.punctual.core.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.run.RunIds;
import dev.punctual.core.time.Instants;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class KeysTest {

    @Test
    void runIdsOfEverySupportedOccurrenceHaveTheKnownShape() {
        for (Instant t :
                new Instant[] {Instants.MIN_SUPPORTED, Instant.parse("2030-06-01T12:34:56.789Z"), Instants.MAX_SUPPORTED
                }) {
            String id = RunIds.forOccurrence(t);
            assertThat(Keys.runId(id)).as(id).isTrue();
            assertThat(Keys.runId(id + "-t0a1b2c"))
                    .as("a triggered run of %s", id)
                    .isTrue();
        }
    }

    @Test
    void anythingElseIsNotARunId() {
        assertThat(Keys.runId(null)).isFalse();
        assertThat(Keys.runId("")).isFalse();
        assertThat(Keys.runId("20300101T000000.000Z-tzzzzzz")).isFalse();
        assertThat(Keys.runId("20300101T000000.000Z/../x")).isFalse();
        assertThat(Keys.runId("x".repeat(2100))).isFalse();
        assertThat(Keys.runId("+100000101T000000.000Z")).as("a year past 9999").isFalse();
    }

    @Test
    void jobIdsAreWhatIdsMakes() {
        assertThat(Keys.jobId(Ids.next("job"))).isTrue();
        assertThat(Keys.jobId(Ids.next("bin"))).isFalse();
        assertThat(Keys.jobId("job_" + "a".repeat(2100))).isFalse();
        assertThat(Keys.jobId(null)).isFalse();
    }
}
