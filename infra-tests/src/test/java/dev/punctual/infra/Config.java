package dev.punctual.infra;

import dev.punctual.core.config.SettingKey;
import dev.punctual.core.config.SettingsSource;
import dev.punctual.wiring.PunctualConfig;
import java.lang.reflect.Method;
import java.util.Set;
import java.util.TreeSet;

/**
 * The environment variables the code reads: {@code punctual.*} configuration, as SmallRye maps it to env names. Core's
 * Settings keys are {@link SettingsSource}'s table; the rest are {@link PunctualConfig}'s methods.
 */
final class Config {
    private Config() {}

    static Set<String> environmentNames() {
        Set<String> names = new TreeSet<>();
        for (SettingKey<?> key : SettingsSource.keys()) {
            names.add(key.environmentName());
        }
        for (Method m : PunctualConfig.class.getMethods()) {
            // queueUrl → PUNCTUAL_QUEUE_URL (config name punctual.queue-url)
            names.add("PUNCTUAL_"
                    + m.getName().replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase());
        }
        return names;
    }
}
