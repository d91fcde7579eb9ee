package dev.punctual.faults;

import dev.punctual.core.Punctual;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A sweeper on a timer, in this JVM: what EventBridge does every minute in AWS, every few hundred milliseconds here.
 * A sweep that throws (an outage, an injected crash) is logged by count and the next one runs as usual.
 */
final class Sweeping implements AutoCloseable {
    final String id;
    final AtomicInteger sweeps = new AtomicInteger();
    final AtomicInteger failures = new AtomicInteger();
    private final ScheduledExecutorService timer;

    Sweeping(Punctual p, String id, Duration period) {
        this.id = id;
        this.timer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("sweeper-" + id).factory());
        timer.scheduleWithFixedDelay(
                () -> {
                    try {
                        p.sweeper.sweep();
                        sweeps.incrementAndGet();
                    } catch (Throwable t) {
                        failures.incrementAndGet();
                    }
                },
                0,
                period.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.shutdown();
        try {
            timer.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
