package dev.punctual.wiring.testing;

import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.Provisioner;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.testing.TestStack;
import dev.punctual.emulators.EmbeddedAws;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.HashMap;
import java.util.Map;

/**
 * For {@code @QuarkusTest}s: points the application's AWS clients at the shared in-process emulators and gives it
 * freshly provisioned resources under a prefix of its own. Init args are passed through as {@code punctual.*}
 * configuration (e.g. {@code retry-base=PT1S}).
 */
public class EmulatorsTestResource implements QuarkusTestResourceLifecycleManager {
    private final Map<String, String> overrides = new HashMap<>();

    @Override
    public void init(Map<String, String> initArgs) {
        overrides.putAll(initArgs);
    }

    @Override
    public Map<String, String> start() {
        EmbeddedAws aws = TestStack.aws();
        Settings settings = TestStack.isolatedSettings().build();
        Provisioner.provision(TestStack.target(), new Resources(settings));
        aws.exportToSystemProperties();
        Map<String, String> config = new HashMap<>(aws.quarkusConfig());
        config.put("punctual.prefix", settings.deployment().prefix());
        config.put("punctual.bucket", settings.deployment().bucket());
        overrides.forEach((k, v) -> config.put("punctual." + k, v));
        return config;
    }

    @Override
    public void stop() {
        // The emulators are shared by every test in this JVM and stop with it.
    }
}
