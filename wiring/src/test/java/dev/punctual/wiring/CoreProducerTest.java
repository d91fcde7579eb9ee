package dev.punctual.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.punctual.core.config.SettingKey;
import dev.punctual.core.config.Settings;
import dev.punctual.core.config.SettingsSource;
import io.quarkus.runtime.Startup;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/**
 * Core's settings come from the application's configuration as SmallRye gives it: a property by its name, or by its
 * environment variable, which SmallRye's environment source finds for the name ({@code PUNCTUAL_RETRY_BASE} for
 * {@code punctual.retry-base}) now that no mapping names these keys.
 */
class CoreProducerTest {
    /** Configuration with {@code properties} (as application.properties) and {@code env} (as the environment). */
    static Config config(Map<String, String> properties, Map<String, String> env) {
        return new SmallRyeConfigBuilder()
                .withSources(
                        new PropertiesConfigSource(properties, "application.properties", 250),
                        new EnvConfigSource(env, 300))
                .build();
    }

    static Settings settings(Map<String, String> properties, Map<String, String> env) {
        return new CoreProducer().settings(config(properties, env));
    }

    @Test
    void everyKeyIsReadFromItsEnvironmentVariable() {
        Map<String, String> env = new HashMap<>();
        Map<String, String> byProperty = new HashMap<>();
        for (SettingKey<?> key : SettingsSource.keys()) {
            env.put(key.environmentName(), key.example());
            byProperty.put(key.property(), key.example());
        }
        Settings expected = SettingsSource.settings(p -> Optional.ofNullable(byProperty.get(p)));
        assertThat(settings(Map.of(), env)).isEqualTo(expected).isNotEqualTo(Settings.defaults());
    }

    @Test
    void aPropertyIsReadByItsNameAndTheEnvironmentWins() {
        assertThat(settings(Map.of("punctual.retry-base", "PT3S"), Map.of())
                        .runs()
                        .retryBase())
                .isEqualTo(Duration.ofSeconds(3));
        assertThat(settings(Map.of("punctual.retry-base", "PT3S"), Map.of("PUNCTUAL_RETRY_BASE", "9s"))
                        .runs()
                        .retryBase())
                .isEqualTo(Duration.ofSeconds(9));
    }

    @Test
    void unsetAndEmptyKeysKeepCoreDefaults() {
        assertThat(settings(Map.of(), Map.of())).isEqualTo(Settings.defaults());
        assertThat(settings(Map.of("punctual.shards", ""), Map.of("PUNCTUAL_LEASE", "")))
                .isEqualTo(Settings.defaults());
    }

    @Test
    void aBadValueStopsTheStartNamingItsKeyAndTheValue() throws Exception {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> settings(Map.of(), Map.of("PUNCTUAL_LEASE", "sixty")))
                .withMessageStartingWith("punctual.lease (env PUNCTUAL_LEASE) is \"sixty\": expected a duration");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> settings(Map.of("punctual.sandbox-network", "host"), Map.of()))
                .withMessageContaining("punctual.sandbox-network")
                .withMessageEndingWith("is \"host\": expected shared or none");
        // Made when the application starts, not when the first request needs it.
        assertThat(CoreProducer.class
                        .getDeclaredMethod("settings", Config.class)
                        .isAnnotationPresent(Startup.class))
                .isTrue();
    }
}
