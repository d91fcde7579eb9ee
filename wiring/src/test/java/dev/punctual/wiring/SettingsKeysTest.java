package dev.punctual.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.SmallRyeConfigBuilderCustomizer;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * SmallRye takes core's keys under {@link PunctualConfig}'s prefix as known, and still refuses at start-up a
 * {@code punctual.*} property no mapping knows, as it did when PunctualConfig named every key.
 */
class SettingsKeysTest {
    static SmallRyeConfig config(Map<String, String> properties, SmallRyeConfigBuilderCustomizer... customizers) {
        return new SmallRyeConfigBuilder()
                .withMapping(PunctualConfig.class)
                .withCustomizers(customizers)
                .withSources(new PropertiesConfigSource(properties, "application.properties", 250))
                .build();
    }

    @Test
    void coresKeysAreKnownBesideTheMappingsOwn() {
        SmallRyeConfig config =
                config(Map.of("punctual.lease", "PT90S", "punctual.queue-url", "http://queue"), new SettingsKeys());
        assertThat(config.getConfigMapping(PunctualConfig.class).queueUrl()).contains("http://queue");
        assertThat(config.getOptionalValue("punctual.lease", String.class)).contains("PT90S");
    }

    @Test
    void withoutThemCoresKeysWouldStopTheStart() {
        assertThatThrownBy(() -> config(Map.of("punctual.lease", "PT90S")))
                .isInstanceOf(ConfigValidationException.class)
                .hasMessageContaining("SRCFG00050: punctual.lease");
    }

    @Test
    void aMisspeltKeyStillStopsTheStart() {
        assertThatThrownBy(() -> config(Map.of("punctual.leese", "PT90S"), new SettingsKeys()))
                .isInstanceOf(ConfigValidationException.class)
                .hasMessageContaining("SRCFG00050: punctual.leese");
    }

    @Test
    void quarkusFindsItAsAService() {
        assertThat(ServiceLoader.load(SmallRyeConfigBuilderCustomizer.class)).anyMatch(c -> c instanceof SettingsKeys);
    }
}
