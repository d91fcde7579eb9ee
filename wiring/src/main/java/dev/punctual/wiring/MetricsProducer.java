package dev.punctual.wiring;

import dev.punctual.core.config.Settings;
import dev.punctual.core.metrics.EmfMeterRegistry;
import dev.punctual.core.metrics.Meters;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * Where core's meters go: with {@code punctual.emf-metrics} (set on AWS), CloudWatch Embedded Metric Format lines on
 * stdout; else the application's Micrometer registry when it has one (the local runner's Prometheus, at
 * {@code /q/metrics}); else nowhere but memory (the API function records none).
 */
public class MetricsProducer {
    @Produces
    @Singleton
    Meters meters(Settings settings, Instance<MeterRegistry> registry) {
        if (settings.publishing().emfMetrics()) {
            return new Meters(new EmfMeterRegistry(
                    settings.deployment().prefix(), line -> System.out.println(line), Clock.SYSTEM));
        }
        return registry.isResolvable() ? new Meters(registry.get()) : Meters.inMemory();
    }
}
