package dev.punctual.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.run.RunRepository.RunRange;
import dev.punctual.core.run.RunState;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a listing of a job's runs asks the table for, and the 400 a bad query gets (one error per parameter). */
class RunListingTest {
    private static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");

    @Test
    void byDefaultTheRunsDueByNowInEveryState() {
        assertThat(RunListing.DEFAULT.resolve(NOW)).isEqualTo(new RunRange(null, NOW, Set.of()));
    }

    @Test
    void futureLiftsTheBoundOfNowAndAToInThePastKeepsItsOwn() {
        assertThat(new RunListing(null, null, null, "true").resolve(NOW)).isEqualTo(new RunRange(null, null, Set.of()));
        assertThat(new RunListing(null, null, "2026-11-25T00:00:00Z", null)
                        .resolve(NOW)
                        .to())
                .as("a to after now, future not asked: still only what is due")
                .isEqualTo(NOW);
        assertThat(new RunListing(null, null, "2026-11-25T00:00:00Z", "true")
                        .resolve(NOW)
                        .to())
                .isEqualTo(Instant.parse("2026-11-25T00:00:00Z"));
        assertThat(new RunListing(null, "2026-11-24T11:00:00+01:00", "2026-11-24T11:30:00Z", null).resolve(NOW))
                .isEqualTo(new RunRange(
                        Instant.parse("2026-11-24T10:00:00Z"), Instant.parse("2026-11-24T11:30:00Z"), Set.of()));
    }

    @Test
    void statesAreCommaSeparated() {
        assertThat(new RunListing("DEAD, FAILED,DEAD", null, null, null)
                        .resolve(NOW)
                        .states())
                .containsExactlyInAnyOrder(RunState.DEAD, RunState.FAILED);
    }

    @Test
    void everyBadParameterIsNamed() {
        assertThatThrownBy(() -> new RunListing("DEAD,nope", "yesterday", "2026-11-24", "yes").resolve(NOW))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactly("state", "from", "to", "future"));
        assertThatThrownBy(
                        () -> new RunListing(null, "2026-11-24T11:00:00Z", "2026-11-24T10:00:00Z", null).resolve(NOW))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors()).containsExactly(new FieldError("to", "must not be before from")));
    }
}
