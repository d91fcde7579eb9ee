package dev.punctual.core.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock tests set and advance by hand, so that they drive time-dependent logic without waiting for real time (in
 * core's test jar, for the other modules' tests too). A {@link #ticking} one also moves on by itself, a millisecond at
 * every reading.
 */
public final class SettableClock extends Clock {
    private final AtomicReference<Instant> now;
    private final Duration tick;

    public SettableClock(Instant start) {
        this(start, Duration.ZERO);
    }

    private SettableClock(Instant start, Duration tick) {
        this.now = new AtomicReference<>(start);
        this.tick = tick;
    }

    /** A clock that moves on by a millisecond at every reading: time passes exactly as fast as the code looks at it. */
    public static SettableClock ticking(Instant start) {
        return new SettableClock(start, Duration.ofMillis(1));
    }

    public void set(Instant t) {
        now.set(t);
    }

    public Instant advance(Duration d) {
        return now.updateAndGet(t -> t.plus(d));
    }

    @Override
    public Instant instant() {
        return now.getAndUpdate(t -> t.plus(tick));
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
