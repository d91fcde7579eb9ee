package dev.punctual.core.it;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves on by a millisecond at every reading: time passes exactly as fast as the code looks at it. */
final class TickingClock extends Clock {
    private final AtomicLong millis;

    TickingClock(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.getAndIncrement());
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
