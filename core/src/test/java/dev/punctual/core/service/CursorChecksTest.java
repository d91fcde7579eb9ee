package dev.punctual.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.infra.PageKey;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** A cursor names the listing it came from: another owner's or job's key, or an impossible value, is a 400. */
class CursorChecksTest {
    private static final Map<String, Predicate<String>> MINE = Map.of("owner", "alice"::equals, "ownerSort", s -> true);

    @Test
    void aKeyOfThisListingRoundTrips() {
        PageKey key = CursorsTest.key("owner", "alice", "ownerSort", "2030-01-01T00:00:00.000Z#job_x");
        assertThat(Cursors.decode(Cursors.encode(key), MINE)).isEqualTo(key);
    }

    @Test
    void aKeyOfAnotherOwnerIsRejected() {
        assertRejected(Cursors.encode(CursorsTest.key("owner", "bob", "ownerSort", "2030-01-01T00:00:00.000Z#job_x")));
    }

    @Test
    void aValueLongerThanAKeyMayBeIsRejected() {
        assertRejected(Cursors.encode(CursorsTest.key("owner", "alice", "ownerSort", "é".repeat(513))));
    }

    private static void assertRejected(String cursor) {
        ValidationException e = catchThrowableOfType(ValidationException.class, () -> Cursors.decode(cursor, MINE));
        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(Rejection.MALFORMED);
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("cursor");
    }
}
