package dev.punctual.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.punctual.core.limits.Quotas;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.limits.RunningLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one mapping from {@code punctual.*} text to Settings. */
class SettingsSourceTest {
    /** Settings from {@code values}, keyed by name under {@code punctual.}. */
    static Settings read(Map<String, String> values) {
        Map<String, String> properties = new HashMap<>();
        values.forEach((k, v) -> properties.put(SettingsSource.PREFIX + k, v));
        return SettingsSource.settings(p -> Optional.ofNullable(properties.get(p)));
    }

    /** The message refusing {@code key=text}, which must be refused. */
    private static String refusal(String key, String text) {
        Throwable refused = catchThrowable(() -> read(Map.of(key, text)));
        assertThat(refused).as("%s=%s is refused", key, text).isInstanceOf(IllegalArgumentException.class);
        return refused.getMessage();
    }

    @Test
    void unsetKeysKeepTheDefaults() {
        assertThat(read(Map.of())).isEqualTo(Settings.defaults());
    }

    @Test
    void everyKeyTakesItsExampleWhichChangesTheSettings() {
        for (SettingKey<?> key : SettingsSource.keys()) {
            assertThat(read(Map.of(key.name(), key.example())))
                    .as("%s=%s", key, key.example())
                    .isNotEqualTo(Settings.defaults());
        }
    }

    @Test
    void theExamplesTogetherSetEveryPartOfTheSettingsTheyName() {
        Map<String, String> all = new LinkedHashMap<>();
        SettingsSource.keys().forEach(k -> all.put(k.name(), k.example()));
        Settings expected = Settings.builder()
                .prefix("acme")
                .bucket("acme-binaries")
                .shards(32)
                .dispatchConcurrency(8)
                .lookahead(Duration.ofMinutes(3))
                .settle(Duration.ofSeconds(90))
                .requeueAfter(Duration.ofMinutes(15))
                .lease(Duration.ofSeconds(90))
                .heartbeat(Duration.ofSeconds(10))
                .retryBase(Duration.ofSeconds(2))
                .retryCap(Duration.ofMinutes(10))
                .minInterval(Duration.ofSeconds(1))
                .executorConcurrency(8)
                .logCapBytes(1_048_576)
                .inlineLogBytes(0)
                .logChunkInterval(Duration.ZERO)
                .shutdownGrace(Duration.ofSeconds(45))
                .retention(Duration.ofDays(7))
                .emfMetrics(true)
                .jsonRunEvents(true)
                .webhooks(WebhookMode.OFF)
                .quotas(new Quotas(500, 600, 10, 100))
                .running(new RunningLimits(5, Map.of("team-a", 10, "team-b", 0)))
                .sandbox(new SandboxConfig(
                        false,
                        300_000,
                        64,
                        Path.of("/var/lib/punctual/sandbox"),
                        SandboxConfig.Network.NONE,
                        SandboxConfig.Disk.WATCH,
                        Path.of("/opt/punctual/punctual-sandbox")))
                .limits(new RunLimits(64, 512, 256, 128, 600, 256))
                .build();
        assertThat(read(all)).isEqualTo(expected);
    }

    @Test
    void aNestedRecordKeepsTheDefaultsOfTheKeysNotSet() {
        Settings s = read(Map.of("quota-jobs", "5", "quota-triggers-per-minute", "7", "limits-disk-mb", "64"));
        assertThat(s.quotas())
                .isEqualTo(new Quotas(5, Quotas.DEFAULT_RUNS_PER_MINUTE, 7, Quotas.DEFAULT_BACKFILL_PER_DAY));
        assertThat(s.limits()).isEqualTo(new RunLimits(256, 2048, 1024, 1024, 3600, 64));
        assertThat(s.sandbox()).isEqualTo(SandboxConfig.DEFAULT);
        assertThat(s.running()).isEqualTo(RunningLimits.NONE);
    }

    @Test
    void aDurationTakesEveryFormTheDeployablesTook() {
        for (String minute : new String[] {"PT1M", "pt60s", "60s", " 60S ", "1m", "60000ms", "60", "+60", "60.0s"}) {
            assertThat(read(Map.of("settle", minute)).sweep().settle())
                    .as(minute)
                    .isEqualTo(Duration.ofMinutes(1));
        }
        for (String days : new String[] {"P2D", "2d", "48h", "PT48H"}) {
            assertThat(read(Map.of("retention", days)).storage().retention())
                    .as(days)
                    .isEqualTo(Duration.ofDays(2));
        }
        assertThat(read(Map.of("lookahead", "1h30m")).sweep().lookahead()).isEqualTo(Duration.ofMinutes(90));
    }

    @Test
    void aBadValueIsRefusedNamingItsKeyItsVariableAndTheValue() {
        assertThat(refusal("lease", "a minute"))
                .isEqualTo("punctual.lease (env PUNCTUAL_LEASE) is \"a minute\": expected a duration such as PT60S,"
                        + " 60s, 500ms, 5m, 1h or 2d (a bare number is seconds)");
        assertThat(refusal("shards", "16.5"))
                .isEqualTo("punctual.shards (env PUNCTUAL_SHARDS) is \"16.5\": expected a whole number");
        assertThat(refusal("webhooks", "all"))
                .isEqualTo("punctual.webhooks (env PUNCTUAL_WEBHOOKS) is \"all\": expected off, public or any");
        assertThat(refusal("sandbox-network", "host")).endsWith("is \"host\": expected shared or none");
        assertThat(refusal("sandbox-disk", "tmpfs")).endsWith("is \"tmpfs\": expected auto, filesystem or watch");
        assertThat(refusal("quota-running-tenants", "team-a=ten"))
                .startsWith("punctual.quota-running-tenants (env PUNCTUAL_QUOTA_RUNNING_TENANTS) is \"team-a=ten\"");
    }

    @Test
    void aValueItsRecordRefusesIsToldWithItsKey() {
        assertThat(refusal("quota-jobs", "0"))
                .isEqualTo("punctual.quota-jobs (env PUNCTUAL_QUOTA_JOBS) is \"0\": every quota must be at least 1");
        assertThat(refusal("quota-running", "101"))
                .startsWith("punctual.quota-running (env PUNCTUAL_QUOTA_RUNNING) is \"101\": ");
        assertThat(refusal("sandbox-uid-base", "999"))
                .startsWith("punctual.sandbox-uid-base (env PUNCTUAL_SANDBOX_UID_BASE) is \"999\": ");
    }

    @Test
    void valuesThatDoNotFitTogetherAreRefusedBySettings() {
        assertThat(refusal("lease", "PT20S")).isEqualTo("heartbeat must be shorter than the lease");
        assertThat(read(Map.of("lease", "PT20S", "heartbeat", "PT5S"))
                        .execution()
                        .lease())
                .isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void blankNumbersAreUnsetAsSmallRyeReadsThem() {
        assertThat(read(Map.of("shards", "  ", "lease", " ", "sandbox", " "))).isEqualTo(Settings.defaults());
        assertThat(read(Map.of("shards", " 32 ")).deployment().shards()).isEqualTo(32);
    }

    @Test
    void booleansTakeSmallRyesWordsAndRefuseAnyOther() {
        for (String yes : new String[] {"true", "TRUE", "1", "yes", "Y", "on", "oui"}) {
            assertThat(read(Map.of("emf-metrics", yes)).publishing().emfMetrics())
                    .as(yes)
                    .isTrue();
        }
        for (String no : new String[] {"false", "0", "NO", "off"}) {
            assertThat(read(Map.of("emf-metrics", no)).publishing().emfMetrics())
                    .as(no)
                    .isFalse();
        }
        // Read as false, a typo would start executors without their sandbox.
        assertThat(refusal("sandbox", "ture"))
                .isEqualTo("punctual.sandbox (env PUNCTUAL_SANDBOX) is \"ture\": expected true or false (also yes/no,"
                        + " on/off, 1/0)");
        assertThat(refusal("json-run-events", "enabled")).contains("punctual.json-run-events", "\"enabled\"");
    }

    @Test
    void everyKeyIsNamedOnceWithTheVariableSmallRyeFindsForIt() {
        assertThat(SettingsSource.keys()).extracting(SettingKey::name).doesNotHaveDuplicates();
        SettingKey<?> retryBase = SettingsSource.key("retry-base").orElseThrow();
        assertThat(retryBase.property()).isEqualTo("punctual.retry-base");
        assertThat(retryBase.environmentName()).isEqualTo("PUNCTUAL_RETRY_BASE");
        assertThat(SettingsSource.key("queue-url")).as("not core's").isEmpty();
    }
}
