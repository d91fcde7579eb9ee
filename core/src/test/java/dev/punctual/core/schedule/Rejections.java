package dev.punctual.core.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.ValidationException;
import java.time.Instant;
import java.util.List;

/** How the validation tests see a spec refused: the exception {@link Schedules#parse} throws, and its fields. */
final class Rejections {
    private Rejections() {}

    /** What parsing {@code spec} at {@code now} under {@code path} throws: asserts that it throws. */
    static ValidationException rejected(Schedules schedules, ScheduleSpec spec, Instant now, String path) {
        ValidationException e = catchThrowableOfType(ValidationException.class, () -> schedules.parse(spec, now, path));
        assertThat(e).as("expected %s to be rejected", spec).isNotNull();
        return e;
    }

    /** The fields the errors name, in order. */
    static List<String> fields(ValidationException e) {
        return e.errors().stream().map(FieldError::field).toList();
    }
}
