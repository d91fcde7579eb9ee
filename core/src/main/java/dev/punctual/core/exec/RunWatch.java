package dev.punctual.core.exec;

import dev.punctual.core.limits.RunLimits;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * What the kernel's rlimits cannot hold for a run without a filesystem of its own ({@link RunDisks}): the disk it
 * uses, looked at once a second while it runs; a run over its {@code diskMb} is killed, saying so. (Its process
 * count is the kernel's: RLIMIT_NPROC, per user.)
 */
final class RunWatch {
    private static final long MIB = 1024L * 1024;
    /** How often the watch looks. */
    static final Duration PERIOD = Duration.ofSeconds(1);

    private final RunLimits limits;
    private final LongSupplier diskUsed;
    private final ProcessRunner.Handle handle;

    RunWatch(RunLimits limits, LongSupplier diskUsed, ProcessRunner.Handle handle) {
        this.limits = limits;
        this.diskUsed = diskUsed;
        this.handle = handle;
    }

    /** One look. Kills the run when it is over its disk limit. Never throws (a throw would end the schedule). */
    void check() {
        try {
            long used = diskUsed.getAsLong();
            if (used > limits.diskMb() * MIB) {
                // At once: a TERM would leave it 5 s to write on (its process group; every process of its uid goes
                // when the leader has).
                handle.killNow(diskExceeded(limits.diskMb(), used));
            }
        } catch (RuntimeException e) {
            System.getLogger(RunWatch.class.getName()).log(System.Logger.Level.WARNING, "disk check failed", e);
        }
    }

    static String diskExceeded(int diskMb, long used) {
        return "exceeded its disk limit (diskMb=" + diskMb + "): it had " + (used + MIB - 1) / MIB + " MiB on disk";
    }

    /**
     * Why a run that exited with {@code exitCode} by itself ended, when a limit explains it: a process killed by
     * SIGXCPU (24) or SIGXFSZ (25) ends with 128 + the signal (a shell passes its child's on). Null otherwise. A file
     * size limit that is the disk's ({@link RunLimits#within}) says so: the job may not have named one.
     */
    static String explainExit(int exitCode, RunLimits limits) {
        return switch (exitCode) {
            case 128 + 24 -> "exceeded its CPU time limit (cpuSeconds=" + limits.cpuSeconds() + ", SIGXCPU)";
            case 128 + 25 ->
                "exceeded its file size limit (fileSizeMb=" + limits.fileSizeMb()
                        + (limits.fileSizeMb().equals(limits.diskMb()) ? " = diskMb" : "") + ", SIGXFSZ)";
            default -> null;
        };
    }
}
