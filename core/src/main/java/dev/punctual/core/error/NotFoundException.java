package dev.punctual.core.error;

/** The addressed resource does not exist for this owner. */
public class NotFoundException extends RuntimeException {
    public NotFoundException(String message) {
        super(message);
    }
}
