package dev.punctual.faults;

import dev.punctual.core.Punctual;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A sweeper on a timer, in this JVM: what EventBridge does every minute in AWS, every few hundred milliseconds here.
 * A sweep that throws (an outage, an injected crash) is logged by count and the next one runs as usual.
 */
final class Sweeping implements AutoCloseable {
    final String id;
    final AtomicInteger sweeps = new AtomicInteger();
    final AtomicInteger failures = new AtomicInteger();
    private final Thread thread;
    private volatile boolean running = true;

    Sweeping(Punctual p, String id, Duration period) {
        this.id = id;
        this.thread = Thread.ofPlatform().daemon().name("sweeper-" + id).start(() -> {
            while (running) {
                try {
                    p.sweeper.sweep();
                    sweeps.incrementAndGet();
                } catch (Throwable t) {
                    failures.incrementAndGet();
                }
                try {
                    Thread.sleep(period.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
