package dev.punctual.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.infra.PageKey;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CursorsTest {
    private static final Set<String> KEYS = Set.of("jobId", "runId");

    /** A two-attribute key of string values, as the tables' keys are. */
    static PageKey key(String name, String value, String name2, String value2) {
        return new PageKey(Map.of(name, value, name2, value2));
    }

    private static String b64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void roundTripsAKey() {
        PageKey key = key("jobId", "job_abc", "runId", "run_2030-01-01T00:00:00.000Z/ü+?&=");
        String cursor = Cursors.encode(key);
        assertThat(cursor).doesNotContain("+", "/", "=");
        assertThat(Cursors.decode(cursor, KEYS)).isEqualTo(key);
    }

    @Test
    void noKeyMeansNoCursorAndBack() {
        assertThat(Cursors.encode(null)).isNull();
        assertThat(Cursors.decode(null, KEYS)).isNull();
        assertThat(Cursors.decode("", KEYS)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"!!! not base64 !!!", "bm90IGpzb24", "e30", "eyJqb2JJZCI6ImEifQ"})
    void rejectsGarbage(String cursor) {
        // "bm90IGpzb24" is "not json"; "e30" is "{}"; "eyJqb2JJZCI6ImEifQ" is {"jobId":"a"} (a key missing).
        assertRejected(cursor);
    }

    @Test
    void rejectsACursorWithUnexpectedKeys() {
        assertRejected(b64("{\"jobId\":\"a\",\"runId\":\"b\",\"owner\":\"someone-else\"}"));
        assertRejected(b64("{\"jobId\":\"a\",\"other\":\"b\"}"));
        assertRejected(Cursors.encode(key("owner", "x", "ownerSort", "y")));
    }

    private static void assertRejected(String cursor) {
        ValidationException e = catchThrowableOfType(ValidationException.class, () -> Cursors.decode(cursor, KEYS));
        assertThat(e).as("cursor %s", cursor).isNotNull();
        assertThat(e.kind()).isEqualTo(Rejection.MALFORMED);
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("cursor");
    }
}
