package dev.punctual.api;

import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;

/**
 * Query parameters are read as text and parsed here, so a bad value gets a 400 naming the parameter (JAX-RS
 * would answer a failed conversion with a bare 404).
 */
final class Params {
    private Params() {}

    static Integer integer(String name, String value) {
        Long v = whole(name, value);
        if (v != null && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) {
            throw malformed(name);
        }
        return v == null ? null : v.intValue();
    }

    static Long whole(String name, String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Long.valueOf(value);
        } catch (NumberFormatException e) {
            throw malformed(name);
        }
    }

    /** {@code true} or {@code false} (absent: false); anything else a 400 naming the parameter. */
    static boolean flag(String name, String value) {
        if (value == null || value.isEmpty() || value.equals("false")) {
            return false;
        }
        if (value.equals("true")) {
            return true;
        }
        throw new ValidationException(
                Rejection.MALFORMED,
                java.util.List.of(new dev.punctual.core.error.FieldError(name, "must be true or false")));
    }

    private static ValidationException malformed(String name) {
        return new ValidationException(
                Rejection.MALFORMED,
                java.util.List.of(new dev.punctual.core.error.FieldError(name, "must be an integer")));
    }
}
