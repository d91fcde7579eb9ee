package dev.punctual.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.config.Settings;
import dev.punctual.core.limits.Quotas;
import dev.punctual.core.limits.RunLimits;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Every {@code punctual.*} setting reaches core's Settings; unset ones keep core's defaults. */
class CoreProducerTest {
    /** A PunctualConfig whose given methods answer the given values and every other one "not set". */
    static PunctualConfig config(Map<String, Object> set) {
        return (PunctualConfig) Proxy.newProxyInstance(
                PunctualConfig.class.getClassLoader(), new Class<?>[] {PunctualConfig.class}, (proxy, method, args) -> {
                    Object v = set.get(method.getName());
                    Class<?> t = method.getReturnType();
                    if (t == OptionalInt.class) {
                        return v == null ? OptionalInt.empty() : OptionalInt.of((Integer) v);
                    }
                    if (t == OptionalLong.class) {
                        return v == null ? OptionalLong.empty() : OptionalLong.of((Long) v);
                    }
                    return Optional.ofNullable(v);
                });
    }

    @Test
    void requeueAfterAndQuotasAreReadFromConfiguration() {
        Settings s = new CoreProducer()
                .settings(config(
                        Map.of("requeueAfter", Duration.ofSeconds(30), "quotaJobs", 5, "quotaTriggersPerMinute", 7)));
        assertThat(s.requeueAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.quotas())
                .isEqualTo(new Quotas(5, Quotas.DEFAULT_RUNS_PER_MINUTE, 7, Quotas.DEFAULT_BACKFILL_PER_DAY));
    }

    @Test
    void theSandboxAndTheRunLimitsAreReadFromConfiguration() {
        Settings s = new CoreProducer()
                .settings(config(Map.ofEntries(
                        Map.entry("sandbox", false),
                        Map.entry("sandboxUidBase", 300_000),
                        Map.entry("sandboxUids", 20),
                        Map.entry("sandboxDir", "/var/lib/punctual/sandbox"),
                        Map.entry("sandboxNetwork", "none"),
                        Map.entry("sandboxDisk", "watch"),
                        Map.entry("sandboxHelper", "/opt/punctual/punctual-sandbox"),
                        Map.entry("limitsProcesses", 11),
                        Map.entry("limitsMemoryMb", 12),
                        Map.entry("limitsOpenFiles", 13),
                        Map.entry("limitsFileSizeMb", 14),
                        Map.entry("limitsCpuSeconds", 15),
                        Map.entry("limitsDiskMb", 16))));
        assertThat(s.sandbox())
                .isEqualTo(new SandboxConfig(
                        false,
                        300_000,
                        20,
                        Path.of("/var/lib/punctual/sandbox"),
                        SandboxConfig.Network.NONE,
                        SandboxConfig.Disk.WATCH,
                        Path.of("/opt/punctual/punctual-sandbox")));
        assertThat(s.limits()).isEqualTo(new RunLimits(11, 12, 13, 14, 15, 16));
    }

    @Test
    void aSandboxNetworkThatIsNeitherSharedNorNoneStopsTheStart() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new CoreProducer().settings(config(Map.of("sandboxNetwork", "host"))))
                .hasMessageContaining("shared or none");
    }

    @Test
    void aSandboxDiskThatIsNotAutoFilesystemOrWatchStopsTheStart() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new CoreProducer().settings(config(Map.of("sandboxDisk", "tmpfs"))))
                .hasMessageContaining("auto, filesystem or watch");
    }

    @Test
    void unsetSettingsKeepCoreDefaults() {
        Settings s = new CoreProducer().settings(config(Map.of()));
        assertThat(s).isEqualTo(Settings.defaults());
    }
}
