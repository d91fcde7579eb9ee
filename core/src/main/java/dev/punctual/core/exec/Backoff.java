package dev.punctual.core.exec;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Retry delay after a failed attempt: base · 2^(attempt−1), capped, with ±20 % jitter so runs that failed together
 * do not retry together. Applied as the message's visibility timeout.
 */
public record Backoff(Duration base, Duration cap, RandomGenerator random) {
    public Duration after(int attempt) {
        long ms = base.toMillis() << Math.min(Math.max(attempt - 1, 0), 30);
        ms = Math.min(ms, cap.toMillis());
        double jitter = 0.8 + 0.4 * random.nextDouble();
        return Duration.ofMillis(Math.max(1000, Math.min(cap.toMillis(), (long) (ms * jitter))));
    }
}
