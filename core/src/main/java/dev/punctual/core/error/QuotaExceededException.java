package dev.punctual.core.error;

/**
 * A tenant's quota would be exceeded; nothing was written. {@code quota} names it (as documented), {@code retryAfter}
 * is when trying again can succeed (the window's end, or a guess for counts that only a deletion frees).
 */
public class QuotaExceededException extends RuntimeException {
    private final String quota;
    private final long retryAfterSeconds;

    public QuotaExceededException(String quota, String message, long retryAfterSeconds) {
        super(message);
        this.quota = quota;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public String quota() {
        return quota;
    }

    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
