package dev.punctual.bench.dispatch;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system clock moved ahead by a shift the scenario sets: time runs at its real rate (a sweep's calls take real
 * time), but the scenario need not wait for the minute it measures to come round; it jumps to it. The shift only
 * grows, so the clock never goes back.
 */
final class ShiftedClock extends Clock {
    private volatile Duration shift = Duration.ZERO;

    /** Jumps ahead to {@code t} unless already past it. */
    synchronized void advanceTo(Instant t) {
        Instant now = instant();
        if (t.isAfter(now)) {
            shift = shift.plus(Duration.between(now, t));
        }
    }

    @Override
    public Instant instant() {
        return Instant.now().plus(shift);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("UTC only");
    }
}
