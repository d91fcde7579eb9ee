package dev.punctual.core.service;

import java.util.List;

/** A request that cannot be accepted as sent; nothing was written. */
public class ValidationException extends RuntimeException {
    private final List<FieldError> errors;
    private final int status;

    public ValidationException(List<FieldError> errors) {
        this(400, errors);
    }

    public ValidationException(int status, List<FieldError> errors) {
        super(
                errors.isEmpty()
                        ? "invalid request"
                        : errors.get(0).field() + ": " + errors.get(0).message());
        this.errors = List.copyOf(errors);
        this.status = status;
    }

    public static ValidationException of(String field, String message) {
        return new ValidationException(List.of(new FieldError(field, message)));
    }

    public List<FieldError> errors() {
        return errors;
    }

    public int status() {
        return status;
    }
}
