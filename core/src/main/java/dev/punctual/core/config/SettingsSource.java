package dev.punctual.core.config;

import static dev.punctual.core.config.ValueType.BOOLEAN;
import static dev.punctual.core.config.ValueType.DURATION;
import static dev.punctual.core.config.ValueType.INT;
import static dev.punctual.core.config.ValueType.LONG;
import static dev.punctual.core.config.ValueType.PATH;
import static dev.punctual.core.config.ValueType.TEXT;

import dev.punctual.core.limits.RunningLimits;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The one mapping from {@code punctual.*} configuration to {@link Settings}: every key core takes, how its text is
 * read and what it sets, in one table; the defaults stay with Settings' records. A deployable hands it a lookup over its
 * configuration (wiring's {@code CoreProducer}: MicroProfile Config, which finds {@code PUNCTUAL_RETRY_BASE} for
 * {@code punctual.retry-base}; the local launcher: system properties and the environment). Adding a setting is a row
 * here, a builder setter (or a draft field) and a row in docs/configuration.md.
 *
 * <p>Keys core does not take (the queue URL, the executor's work directory, the API's authentication…) are wiring's
 * {@code PunctualConfig}; no key is in both.
 */
public final class SettingsSource {
    public static final String PREFIX = "punctual.";

    private static final ValueType<Map<String, Integer>> TENANT_LIMITS =
            ValueType.of("owner=N entries separated by ;", RunningLimits::parseTenants);
    private static final ValueType<WebhookMode> WEBHOOKS = ValueType.oneOf(WebhookMode.values(), WebhookMode::parse);
    private static final ValueType<SandboxConfig.Network> NETWORK =
            ValueType.oneOf(SandboxConfig.Network.values(), SandboxConfig.Network::parse);
    private static final ValueType<SandboxConfig.Disk> DISK =
            ValueType.oneOf(SandboxConfig.Disk.values(), SandboxConfig.Disk::parse);

    private static final List<SettingKey<?>> KEYS = List.of(
            top("prefix", TEXT, "acme", Settings.Builder::prefix),
            top("bucket", TEXT, "acme-binaries", Settings.Builder::bucket),
            top("shards", INT, "32", Settings.Builder::shards),
            top("dispatch-concurrency", INT, "8", Settings.Builder::dispatchConcurrency),
            top("lookahead", DURATION, "PT3M", Settings.Builder::lookahead),
            top("settle", DURATION, "90s", Settings.Builder::settle),
            top("requeue-after", DURATION, "15m", Settings.Builder::requeueAfter),
            top("lease", DURATION, "PT90S", Settings.Builder::lease),
            top("heartbeat", DURATION, "10s", Settings.Builder::heartbeat),
            top("retry-base", DURATION, "PT2S", Settings.Builder::retryBase),
            top("retry-cap", DURATION, "10m", Settings.Builder::retryCap),
            top("min-interval", DURATION, "1", Settings.Builder::minInterval),
            top("executor-concurrency", INT, "8", Settings.Builder::executorConcurrency),
            top("log-cap-bytes", LONG, "1048576", Settings.Builder::logCapBytes),
            top("inline-log-bytes", LONG, "0", Settings.Builder::inlineLogBytes),
            top("log-chunk-interval", DURATION, "PT0S", Settings.Builder::logChunkInterval),
            top("shutdown-grace", DURATION, "45s", Settings.Builder::shutdownGrace),
            top("retention", DURATION, "P7D", Settings.Builder::retention),
            top("emf-metrics", BOOLEAN, "true", Settings.Builder::emfMetrics),
            top("json-run-events", BOOLEAN, "true", Settings.Builder::jsonRunEvents),
            top("webhooks", WEBHOOKS, "off", Settings.Builder::webhooks),
            part("quota-jobs", INT, "500", (d, v) -> d.quotaJobs = v),
            part("quota-runs-per-minute", INT, "600", (d, v) -> d.quotaRunsPerMinute = v),
            part("quota-triggers-per-minute", INT, "10", (d, v) -> d.quotaTriggersPerMinute = v),
            part("quota-backfill-per-day", INT, "100", (d, v) -> d.quotaBackfillPerDay = v),
            part("quota-running", INT, "5", (d, v) -> d.running = v),
            part("quota-running-tenants", TENANT_LIMITS, "team-a=10;team-b=0", (d, v) -> d.runningTenants = v),
            part("sandbox", BOOLEAN, "false", (d, v) -> d.sandbox = v),
            part("sandbox-uid-base", INT, "300000", (d, v) -> d.sandboxUidBase = v),
            part("sandbox-uids", INT, "64", (d, v) -> d.sandboxUids = v),
            part("sandbox-dir", PATH, "/var/lib/punctual/sandbox", (d, v) -> d.sandboxDir = v),
            part("sandbox-network", NETWORK, "none", (d, v) -> d.sandboxNetwork = v),
            part("sandbox-disk", DISK, "watch", (d, v) -> d.sandboxDisk = v),
            part("sandbox-helper", PATH, "/opt/punctual/punctual-sandbox", (d, v) -> d.sandboxHelper = v),
            part("limits-processes", INT, "64", (d, v) -> d.limitsProcesses = v),
            part("limits-memory-mb", INT, "512", (d, v) -> d.limitsMemoryMb = v),
            part("limits-open-files", INT, "256", (d, v) -> d.limitsOpenFiles = v),
            part("limits-file-size-mb", INT, "128", (d, v) -> d.limitsFileSizeMb = v),
            part("limits-cpu-seconds", INT, "600", (d, v) -> d.limitsCpuSeconds = v),
            part("limits-disk-mb", INT, "256", (d, v) -> d.limitsDiskMb = v));

    private SettingsSource() {}

    /** Every key, in the table's order. */
    public static List<SettingKey<?>> keys() {
        return KEYS;
    }

    /** The key named {@code name} under {@code punctual.} ({@code retry-base}), if core takes it. */
    public static Optional<SettingKey<?>> key(String name) {
        return KEYS.stream().filter(k -> k.name().equals(name)).findFirst();
    }

    /**
     * The environment variable that sets {@code property}, as SmallRye's environment source finds one for a
     * property: upper case, every other character than a letter or digit an underscore ({@code punctual.retry-base}:
     * {@code PUNCTUAL_RETRY_BASE}).
     */
    public static String environmentName(String property) {
        return property.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    /**
     * The settings {@code lookup} holds: it answers a property ({@code punctual.lease}) with its text, or empty when
     * unset. An unset key keeps Settings' default.
     *
     * @throws IllegalArgumentException naming the key and its text, when a value is not one the key takes; or, from
     *     Settings, when values do not fit together (a heartbeat not shorter than the lease)
     */
    public static Settings settings(Function<String, Optional<String>> lookup) {
        SettingsDraft draft = new SettingsDraft();
        for (SettingKey<?> key : KEYS) {
            lookup.apply(key.property()).ifPresent(text -> key.apply(draft, text));
        }
        return draft.build();
    }

    /** A key the builder takes as a setter of its own (its records are made at build). */
    private static <T> SettingKey<T> top(
            String name, ValueType<T> type, String example, BiConsumer<Settings.Builder, T> set) {
        return new SettingKey<>(name, type, example, (d, v) -> set.accept(d.settings, v));
    }

    /** A key of a nested record (quotas, running limits, sandbox, run limits), set on the draft. */
    private static <T> SettingKey<T> part(
            String name, ValueType<T> type, String example, BiConsumer<SettingsDraft, T> set) {
        return new SettingKey<>(name, type, example, set);
    }
}
