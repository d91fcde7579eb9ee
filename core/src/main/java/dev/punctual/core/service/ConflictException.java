package dev.punctual.core.service;

/** The request is well-formed but the resource's current state does not allow it (HTTP 409); nothing was written. */
public class ConflictException extends RuntimeException {
    public ConflictException(String message) {
        super(message);
    }
}
