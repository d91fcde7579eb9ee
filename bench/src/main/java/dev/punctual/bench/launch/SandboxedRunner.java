package dev.punctual.bench.launch;

import dev.punctual.bench.FixedThreads.Trial;
import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.exec.ProcessRunner;
import dev.punctual.core.exec.Sandbox;
import dev.punctual.core.limits.RunLimits;
import java.nio.file.Path;
import java.util.List;

/** The executor's launch with the sandbox: a uid and a private directory per run, one verified copy per binary. */
final class SandboxedRunner implements LaunchPath {
    static final String OPEN = "sandbox open";
    static final String RUN = "sandboxed start + await";
    static final String CLOSE = "sandbox close";
    private static final String OWN_OPEN =
            "; its filesystem's image, a sparse file of diskMb (1024 MiB) formatted by " + "`mkfs.ext4`";
    private static final String OWN_RUN = "`punctual-sandbox` (a mount namespace, the image on a loop device mounted "
            + "at its directory, its temp directories bound from it; unmounted as its last process exits), ";

    private final RunnerSettings settings;
    private final Sandbox sandbox;
    private final SandboxConfig config;

    SandboxedRunner(RunnerSettings settings, SandboxConfig config) {
        this.settings = settings;
        this.config = config;
        this.sandbox = Sandbox.create(config);
    }

    @Override
    public String name() {
        return "ProcessRunner + sandbox, " + settings.chain();
    }

    @Override
    public String description() {
        return "`Sandbox.open(Sandbox.executable(owner, sha256, binary))` (" + OPEN + ": the binary's verified "
                + "executable copy, made by the first run only; a free uid of " + config.uidBase() + ".."
                + (config.uidBase() + config.uidCount() - 1) + ", one this process held and found empty last time "
                + "with no scan; its 0700 directory" + (sandbox.ownFilesystems() ? OWN_OPEN : "")
                + ") + `ProcessRunner.start(..., sandbox.confinement(lease, default limits))` + `await` ("
                + RUN + ": as the executor launches a run: "
                + (settings.runner().throughLauncher()
                        ? "a request to the helper's launcher (`punctual-sandbox --serve`, one per JVM), which forks"
                                + " and makes the helper's steps (`-r` the default run limits, `-u` its uid; the "
                                + "network a namespace kept for the uid), then one exec of the binary; it copies the "
                                + "output to the log and kills the uid's processes itself"
                        : settings.runner().throughHelper()
                                ? "`punctual-sandbox -s -k` with `-r` the default run limits, `-u` its uid, every step in "
                                        + "one process, then one exec of the binary"
                                        + (sandbox.ownFilesystems() ? " (with `-d`: " + OWN_RUN + ")" : "")
                                : "`setsid`, " + (sandbox.ownFilesystems() ? OWN_RUN : "")
                                        + "`prlimit` with the default run limits, "
                                        + "`setpriv --reuid/--regid --clear-groups --no-new-privs`")
                + ", then a kill of every process of the "
                + "uid) + `Sandbox.close(lease)` (" + CLOSE + ": delete its directory"
                + (sandbox.ownFilesystems() ? ", its image" : "") + " and leftovers, keep the uid, "
                + "found empty by the kill, for the next run); under " + config.dir() + "; disks: "
                + (sandbox.ownFilesystems() ? "a filesystem of its own each" : "watched") + "; network: "
                + (sandbox.privateNetwork()
                        ? settings.runner().throughLauncher()
                                ? "an empty namespace kept for each uid, joined"
                                : "a namespace of its own each, empty"
                        : "the executor's");
    }

    @Override
    public String skipReason() {
        return sandbox.active() ? null : "skipped: needs root";
    }

    @Override
    public List<String> steps() {
        return List.of(OPEN, RUN, CLOSE);
    }

    @Override
    public Trial trial(int worker, Binary binary) {
        Path log = settings.logFile(worker);
        return steps -> {
            long t0 = System.nanoTime();
            Sandbox.Lease lease = sandbox.open(
                    sandbox.executable("bench", binary.sha256(), binary::path), RunLimits.DEFAULT_MAXIMA.diskMb());
            long t1 = System.nanoTime();
            ProcessRunner.Result result;
            long t2;
            try {
                result = settings.runner()
                        .start(
                                lease.binary(),
                                List.of(),
                                settings.env(),
                                lease.dir(),
                                log,
                                sandbox.confinement(lease, RunLimits.DEFAULT_MAXIMA))
                        .await(settings.timeout());
            } finally {
                t2 = System.nanoTime();
                sandbox.close(lease);
            }
            long t3 = System.nanoTime();
            steps.record(OPEN, t1 - t0);
            steps.record(RUN, t2 - t1);
            steps.record(CLOSE, t3 - t2);
            RunnerSettings.check(result, log);
        };
    }
}
