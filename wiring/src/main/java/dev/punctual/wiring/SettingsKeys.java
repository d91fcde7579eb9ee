package dev.punctual.wiring;

import dev.punctual.core.config.SettingKey;
import dev.punctual.core.config.SettingsSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.SmallRyeConfigBuilderCustomizer;

/**
 * Tells SmallRye the keys core's {@link SettingsSource} reads. {@link PunctualConfig} maps the prefix
 * {@code punctual}, and SmallRye refuses at start-up a property under a mapping's prefix that the mapping does not
 * name (SRCFG00050, "does not map to any root"): {@code punctual.lease} in application.properties, a system property
 * or a test's overrides would stop every deployable. Each key is named to it as one to leave to others, so that a
 * misspelt {@code punctual.leese} is still refused as before. (Environment variables are never refused: SmallRye maps
 * them to the names it knows and leaves the rest.) Quarkus finds this through
 * {@code META-INF/services/io.smallrye.config.SmallRyeConfigBuilderCustomizer}, at build time, for both of its
 * configurations.
 */
public class SettingsKeys implements SmallRyeConfigBuilderCustomizer {
    @Override
    public void configBuilder(SmallRyeConfigBuilder builder) {
        for (SettingKey<?> key : SettingsSource.keys()) {
            builder.withMappingIgnore(key.property());
        }
    }
}
