package dev.punctual.core.error;

/** The request is well-formed but the resource's current state does not allow it ({@link Rejection#CONFLICT} for one field at fault); nothing was written. */
public class ConflictException extends RuntimeException {
    public ConflictException(String message) {
        super(message);
    }
}
