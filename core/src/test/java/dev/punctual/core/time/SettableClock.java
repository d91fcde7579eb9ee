package dev.punctual.core.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock tests set and advance by hand, shipped in main code (as db-scheduler does) so every module's tests can
 * drive time-dependent logic without waiting for real time.
 */
public final class SettableClock extends Clock {
    private final AtomicReference<Instant> now;

    public SettableClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    public void set(Instant t) {
        now.set(t);
    }

    public Instant advance(Duration d) {
        return now.updateAndGet(t -> t.plus(d));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
