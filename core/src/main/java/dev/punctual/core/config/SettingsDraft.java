package dev.punctual.core.config;

import dev.punctual.core.limits.Quotas;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.limits.RunningLimits;
import java.nio.file.Path;
import java.util.Map;

/**
 * Settings while {@link SettingsSource} reads them: the builder, and the parts of the nested records, which a key sets
 * one at a time; every part starts at its record's default, so an unset key keeps it.
 */
final class SettingsDraft {
    private static final Quotas Q = Quotas.DEFAULTS;
    private static final SandboxConfig S = SandboxConfig.DEFAULT;
    private static final RunLimits L = RunLimits.DEFAULT_MAXIMA;

    final Settings.Builder settings = Settings.builder();

    int quotaJobs = Q.jobs();
    int quotaRunsPerMinute = Q.runsPerMinute();
    int quotaTriggersPerMinute = Q.triggersPerMinute();
    int quotaBackfillPerDay = Q.backfillPerDay();

    int running = RunningLimits.NONE.perTenant();
    Map<String, Integer> runningTenants = RunningLimits.NONE.tenants();

    boolean sandbox = S.enabled();
    int sandboxUidBase = S.uidBase();
    int sandboxUids = S.uidCount();
    Path sandboxDir = S.dir();
    SandboxConfig.Network sandboxNetwork = S.network();
    SandboxConfig.Disk sandboxDisk = S.disk();
    Path sandboxHelper = S.helper();

    int limitsProcesses = L.processes();
    int limitsMemoryMb = L.memoryMb();
    int limitsOpenFiles = L.openFiles();
    int limitsFileSizeMb = L.fileSizeMb();
    int limitsCpuSeconds = L.cpuSeconds();
    int limitsDiskMb = L.diskMb();

    /**
     * The nested records as set so far. Each checks its own values, so {@link SettingKey} builds them after every key
     * it sets: a value a record refuses is then told with the key that set it.
     */
    Settings.Builder nested() {
        return settings.quotas(new Quotas(quotaJobs, quotaRunsPerMinute, quotaTriggersPerMinute, quotaBackfillPerDay))
                .running(new RunningLimits(running, runningTenants))
                .sandbox(new SandboxConfig(
                        sandbox, sandboxUidBase, sandboxUids, sandboxDir, sandboxNetwork, sandboxDisk, sandboxHelper))
                .limits(new RunLimits(
                        limitsProcesses,
                        limitsMemoryMb,
                        limitsOpenFiles,
                        limitsFileSizeMb,
                        limitsCpuSeconds,
                        limitsDiskMb));
    }

    /**
     * The settings; what a record checks across keys (heartbeat shorter than the lease…) is checked here, when the
     * builder makes it.
     */
    Settings build() {
        return nested().build();
    }
}
