package dev.punctual.wiring;

import dev.punctual.core.infra.Metering;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The SDK clients' configuration names {@link Metering} as an interceptor by class name
 * ({@code quarkus.<service>.interceptors}), so a native image must keep its constructor.
 */
@RegisterForReflection(targets = Metering.class)
final class MeteringRegistration {
    private MeteringRegistration() {}
}
