package dev.punctual.core.error;

import java.util.List;

/** A request that cannot be accepted as sent, with the fields at fault and why; nothing was written. */
public class ValidationException extends RuntimeException {
    private final List<FieldError> errors;
    private final Rejection kind;

    /** A malformed request ({@link Rejection#MALFORMED}). */
    public ValidationException(List<FieldError> errors) {
        this(Rejection.MALFORMED, errors);
    }

    public ValidationException(Rejection kind, List<FieldError> errors) {
        super(
                errors.isEmpty()
                        ? "invalid request"
                        : errors.get(0).field() + ": " + errors.get(0).message());
        this.errors = List.copyOf(errors);
        this.kind = kind;
    }

    public static ValidationException of(String field, String message) {
        return new ValidationException(List.of(new FieldError(field, message)));
    }

    public List<FieldError> errors() {
        return errors;
    }

    public Rejection kind() {
        return kind;
    }
}
