package dev.punctual.core.exec;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/** Store calls tried again while this executor's lease on a run lasts; and waiting out a run's due time. */
final class WhileHeld {
    private static final System.Logger LOG = System.getLogger(WhileHeld.class.getName());

    private WhileHeld() {}

    /** The first wait before a write is tried again, and the longest. */
    static final Duration RETRY_FIRST = Duration.ofMillis(100);

    static final Duration RETRY_MOST = Duration.ofSeconds(5);

    /**
     * {@code call}, tried again with backoff (at most {@code maxTries} times) while it fails and this executor's
     * lease ({@code held}, which the heartbeat extends) lasts past the next try; the last failure is thrown. A binary
     * that exited is run again only if its outcome could not be recorded before the lease could pass to another
     * executor: a store outage shorter than that costs nothing.
     */
    static <T> T call(Clock clock, AtomicReference<Instant> held, String what, int maxTries, Supplier<T> call)
            throws InterruptedException {
        Duration wait = RETRY_FIRST;
        for (int tries = 1; ; tries++) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                // The last try must be over before the lease is: leave it RETRY_FIRST of room.
                long left = Duration.between(clock.instant(), held.get())
                        .minus(RETRY_FIRST)
                        .toMillis();
                if (left <= 0 || tries >= maxTries) {
                    LOG.log(Level.WARNING, what + " failed " + tries + " times; giving up", e);
                    throw e;
                }
                long sleep = Math.min(wait.toMillis(), left);
                LOG.log(Level.WARNING, what + " failed (try " + tries + "), trying again in " + sleep + " ms: " + e);
                Thread.sleep(sleep);
                wait = wait.multipliedBy(2).compareTo(RETRY_MOST) > 0 ? RETRY_MOST : wait.multipliedBy(2);
            }
        }
    }

    /** Sleeps until {@code due} by this executor's clock (rounded up to the next millisecond); at once if past. */
    static void waitUntil(Clock clock, Instant due) throws InterruptedException {
        Duration rest = Duration.between(clock.instant(), due);
        if (rest.toNanos() > 0) {
            Thread.sleep((rest.toNanos() + 999_999) / 1_000_000);
        }
    }
}
