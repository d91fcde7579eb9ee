package dev.punctual.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.config.Settings;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every setting docs/configuration.md's table documents is read and has an effect: it is a key of
 * {@link PunctualConfig}, and a value for it either changes core's Settings or is read by the code named below.
 * (A documented key once did nothing at all: {@code punctual.requeue-after}.)
 */
class DocumentedSettingsTest {
    /** Keys that are not part of core's Settings, and the source file that reads each. */
    private static final Map<String, String> READ_ELSEWHERE = Map.of(
            "queueUrl", "wiring/src/main/java/dev/punctual/wiring/CoreProducer.java",
            "s3PathStyle", "wiring/src/main/java/dev/punctual/wiring/CoreProducer.java",
            "workDir", "executor/src/main/java/dev/punctual/executor/ExecutorLifecycle.java",
            "executorId", "executor/src/main/java/dev/punctual/executor/ExecutorLifecycle.java",
            "executorPrimeCalls", "executor/src/main/java/dev/punctual/executor/ExecutorLifecycle.java",
            "authMode", "api-function/src/main/java/dev/punctual/api/function/GatewayTenants.java",
            "authTenantClaim", "api-function/src/main/java/dev/punctual/api/function/GatewayTenants.java",
            "authIamTenant", "api-function/src/main/java/dev/punctual/api/function/GatewayTenants.java",
            "eventsBusName", "wiring/src/main/java/dev/punctual/wiring/CoreProducer.java",
            "eventsSource", "wiring/src/main/java/dev/punctual/wiring/CoreProducer.java");

    /** Values a default would not have, where the type's usual one is not valid. */
    private static final Map<String, Object> SAMPLES = Map.ofEntries(
            Map.entry("lookahead", Duration.ofMinutes(3)),
            Map.entry("heartbeat", Duration.ofSeconds(7)),
            Map.entry("sandbox", false),
            Map.entry("sandboxUidBase", 300_000),
            Map.entry("sandboxNetwork", "none"),
            Map.entry("sandboxDisk", "watch"),
            Map.entry("prefix", "other"),
            Map.entry("webhooks", "any"),
            Map.entry("quotaRunningTenants", "team-a=3"));

    private static final Path ROOT = Path.of("..");

    /** The keys in docs/configuration.md's table, e.g. {@code retry-base} and {@code retry-cap}. */
    static List<String> documentedKeys() throws IOException {
        List<String> keys = new ArrayList<>();
        Pattern cell = Pattern.compile("`(?:punctual\\.)?([a-z0-9.-]+)`");
        for (String line : Files.readAllLines(ROOT.resolve("docs/configuration.md"))) {
            if (!line.startsWith("| `punctual.")) {
                continue;
            }
            Matcher m = cell.matcher(line.split("\\|")[1]);
            while (m.find()) {
                keys.add(m.group(1));
            }
        }
        return keys;
    }

    static String camel(String kebab) {
        StringBuilder b = new StringBuilder();
        for (String part : kebab.split("[-.]")) {
            b.append(b.isEmpty() ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return b.toString();
    }

    @Test
    void everyDocumentedKeyIsAConfigurationKey() throws IOException {
        List<String> keys = documentedKeys();
        assertThat(keys).as("docs/configuration.md's table").hasSizeGreaterThan(30);
        List<String> methods = Arrays.stream(PunctualConfig.class.getMethods())
                .map(Method::getName)
                .toList();
        for (String key : keys) {
            assertThat(methods).as("punctual.%s is documented", key).contains(camel(key));
        }
    }

    @Test
    void everyDocumentedKeyChangesSettingsOrIsReadWhereItIsNeeded() throws Exception {
        for (String key : documentedKeys()) {
            String name = camel(key);
            Method m = PunctualConfig.class.getMethod(name);
            if (READ_ELSEWHERE.containsKey(name)) {
                String source = Files.readString(ROOT.resolve(READ_ELSEWHERE.get(name)));
                assertThat(source).as("punctual.%s is read", key).contains("." + name + "()");
                continue;
            }
            Object value = SAMPLES.getOrDefault(
                    name, sample(m.getReturnType(), m.getGenericReturnType().getTypeName()));
            Settings s = new CoreProducer().settings(CoreProducerTest.config(Map.of(name, value)));
            assertThat(s)
                    .as("punctual.%s=%s changes what core runs with", key, value)
                    .isNotEqualTo(Settings.defaults());
        }
    }

    private static Object sample(Class<?> type, String generic) {
        if (type == OptionalInt.class) {
            return 7;
        }
        if (type == OptionalLong.class) {
            return 7L;
        }
        if (generic.contains("Duration")) {
            return Duration.ofSeconds(61);
        }
        if (generic.contains("Boolean")) {
            return true;
        }
        return "other";
    }
}
