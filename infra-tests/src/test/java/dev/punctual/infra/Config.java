package dev.punctual.infra;

import dev.punctual.wiring.PunctualConfig;
import java.lang.reflect.Method;
import java.util.Set;
import java.util.TreeSet;

/** The environment variables the code reads: {@code punctual.*} configuration, as Quarkus maps it to env names. */
final class Config {
    private Config() {}

    static Set<String> environmentNames() {
        Set<String> names = new TreeSet<>();
        for (Method m : PunctualConfig.class.getMethods()) {
            // queueUrl → PUNCTUAL_QUEUE_URL (config name punctual.queue-url)
            names.add("PUNCTUAL_"
                    + m.getName().replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase());
        }
        return names;
    }
}
