package dev.punctual.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.config.SettingKey;
import dev.punctual.core.config.Settings;
import dev.punctual.core.config.SettingsSource;
import io.smallrye.config.WithName;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md's table and the two mappings of {@code punctual.*} say the same: every documented key is a
 * key of exactly one of them (core's {@link SettingsSource}, or {@link PunctualConfig} for the rest), every key of
 * theirs is documented, and a value for it has an effect: it changes core's Settings, or it is read by the code named
 * below. (A documented key once did nothing at all: {@code punctual.requeue-after}.) The defaults the table writes
 * are the code's.
 */
class DocumentedSettingsTest {
    /** PunctualConfig's methods, and the source file that reads each. */
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

    /** Settings keys whose default the table writes as what it depends on, not as a value. */
    private static final Set<String> DERIVED_DEFAULTS = Set.of(
            "bucket", // <prefix>-artifacts
            "sandbox-dir", // under $TMPDIR
            "sandbox-helper"); // beside the application

    private static final Path ROOT = Path.of("..");

    /** The table's rows of {@code punctual.*} keys: each key, e.g. {@code retry-cap}, with its default cell's value. */
    static Map<String, Optional<String>> documented() throws IOException {
        Map<String, Optional<String>> keys = new LinkedHashMap<>();
        Pattern code = Pattern.compile("`(?:punctual\\.)?([^`]+)`");
        for (String line : Files.readAllLines(ROOT.resolve("docs/configuration.md"))) {
            if (!line.startsWith("| `punctual.")) {
                continue;
            }
            String[] cells = line.split("\\|");
            List<String> names = spans(code, cells[1]);
            List<String> defaults = spans(code, cells[2]);
            for (int i = 0; i < names.size(); i++) {
                keys.put(
                        names.get(i),
                        names.size() == defaults.size() ? Optional.of(defaults.get(i)) : Optional.empty());
            }
        }
        return keys;
    }

    private static List<String> spans(Pattern code, String cell) {
        List<String> out = new ArrayList<>();
        for (Matcher m = code.matcher(cell); m.find(); ) {
            out.add(m.group(1));
        }
        return out;
    }

    /** PunctualConfig's keys as configured ({@code events.bus-name}), each with its method. */
    static Map<String, Method> punctualConfigKeys() {
        Map<String, Method> keys = new LinkedHashMap<>();
        for (Method m : PunctualConfig.class.getMethods()) {
            WithName named = m.getAnnotation(WithName.class);
            keys.put(
                    named != null
                            ? named.value()
                            : m.getName()
                                    .replaceAll("([a-z0-9])([A-Z])", "$1-$2")
                                    .toLowerCase(Locale.ROOT),
                    m);
        }
        return keys;
    }

    static Settings settings(String key, String text) {
        return SettingsSource.settings(
                p -> p.equals(SettingsSource.PREFIX + key) ? Optional.of(text) : Optional.empty());
    }

    @Test
    void everyDocumentedKeyIsAKeyOfExactlyOneMappingAndEveryKeyIsDocumented() throws IOException {
        Set<String> documented = documented().keySet();
        assertThat(documented).as("docs/configuration.md's table").hasSizeGreaterThan(30);
        Set<String> core = new TreeSet<>();
        SettingsSource.keys().forEach(k -> core.add(k.name()));
        Set<String> rest = punctualConfigKeys().keySet();
        for (String key : documented) {
            assertThat(core.contains(key) || rest.contains(key))
                    .as("punctual.%s is documented, and a key", key)
                    .isTrue();
        }
        assertThat(core).as("keys of both mappings").doesNotContainAnyElementsOf(rest);
        assertThat(documented).as("keys documented").containsAll(core).containsAll(rest);
    }

    @Test
    void everyDocumentedKeyChangesSettingsOrIsReadWhereItIsNeeded() throws Exception {
        Map<String, Method> rest = punctualConfigKeys();
        for (String key : documented().keySet()) {
            Optional<SettingKey<?>> setting = SettingsSource.key(key);
            if (setting.isPresent()) {
                String example = setting.get().example();
                assertThat(settings(key, example))
                        .as("punctual.%s=%s changes what core runs with", key, example)
                        .isNotEqualTo(Settings.defaults());
                continue;
            }
            String name = rest.get(key).getName();
            assertThat(READ_ELSEWHERE).as("where punctual.%s is read", key).containsKey(name);
            String source = Files.readString(ROOT.resolve(READ_ELSEWHERE.get(name)));
            assertThat(source).as("punctual.%s is read", key).contains("." + name + "()");
        }
    }

    @Test
    void theDocumentedDefaultsAreCoresDefaults() throws IOException {
        int checked = 0;
        for (var row : documented().entrySet()) {
            String key = row.getKey();
            if (SettingsSource.key(key).isEmpty()
                    || DERIVED_DEFAULTS.contains(key)
                    || row.getValue().isEmpty()) {
                continue;
            }
            assertThat(settings(key, row.getValue().get()))
                    .as(
                            "punctual.%s's documented default, %s",
                            key, row.getValue().get())
                    .isEqualTo(Settings.defaults());
            checked++;
        }
        assertThat(checked).as("documented defaults checked").isGreaterThan(30);
    }
}
