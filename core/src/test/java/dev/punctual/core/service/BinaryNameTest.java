package dev.punctual.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A binary's name: required, at most 256 characters, no control characters (as job names). */
class BinaryNameTest {
    /** Validation comes before any storage call, so none is needed here. */
    private final BinaryService service = new BinaryService(null, null, null, Clock.systemUTC());

    private ValidationException refused(String name) {
        return catchThrowableOfType(
                ValidationException.class,
                () -> service.register("local", new BinaryRequest(name, "0".repeat(64), 10L)));
    }

    @Test
    void controlCharactersInTheNameAreRefusedNamingTheField() {
        for (String name : List.of("line\nbreak", "tab\there", "esc\u001b[2J", "nul\0", "del\u007f", "c1\u0085")) {
            ValidationException e = refused(name);
            assertThat(e).as(name).isNotNull();
            assertThat(e.kind()).isEqualTo(Rejection.INVALID);
            assertThat(e.errors()).singleElement().satisfies(f -> {
                assertThat(f.field()).isEqualTo("name");
                assertThat(f.message()).isEqualTo("must not contain control characters");
            });
        }
    }

    @Test
    void blankAndOverlongNamesAreStillRefused() {
        assertThat(refused(" ").errors()).extracting(FieldError::field).containsExactly("name");
        assertThat(refused("n".repeat(257)).errors())
                .extracting(FieldError::message)
                .containsExactly("must be at most 256 characters");
    }
}
