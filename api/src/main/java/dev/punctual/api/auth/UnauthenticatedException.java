package dev.punctual.api.auth;

/** The request has no identity the API accepts: answered 401 with {@code WWW-Authenticate}. */
public class UnauthenticatedException extends RuntimeException {
    public UnauthenticatedException(String message) {
        super(message);
    }
}
