package dev.punctual.bench.launch;

import dev.punctual.bench.FixedThreads.RunFailed;
import dev.punctual.core.config.Execution;
import dev.punctual.core.config.Storage;
import dev.punctual.core.exec.ProcessRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** How both ProcessRunner paths launch: the executor's defaults, and an environment like a run's. */
record RunnerSettings(ProcessRunner runner, Map<String, String> env, Duration timeout, Path dir) {
    /** What the executor gives every run (RunWorker), with fixed values. */
    static final Map<String, String> RUN_ENV = Map.of(
            "SCHEDULER_JOB_ID", "bench-job",
            "SCHEDULER_RUN_ID", "bench-run",
            "SCHEDULER_ATTEMPT", "1",
            "SCHEDULER_SCHEDULED_AT", "2026-01-01T00:00:00Z",
            "SCHEDULER_IDEMPOTENCY_KEY", "bench-job@2026-01-01T00:00:00Z");

    static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** Starting runs through {@code helper} (null: util-linux's tools), sandboxed ones through its launcher. */
    static RunnerSettings defaults(Path dir, Path helper) {
        return defaults(dir, helper, true);
    }

    /** As above; {@code launch} false: sandboxed runs through a spawn of the helper each, as before the launcher. */
    static RunnerSettings defaults(Path dir, Path helper, boolean launch) {
        return new RunnerSettings(
                new ProcessRunner(Storage.DEFAULT_LOG_CAP_BYTES, Execution.DEFAULT_KILL_GRACE, helper, launch),
                RUN_ENV,
                TIMEOUT,
                dir);
    }

    /** How sandboxed runs start, for a path's name: "launcher", "helper" or "tools". */
    String chain() {
        return runner.throughLauncher() ? "launcher" : runner.throughHelper() ? "helper" : "tools";
    }

    /** The log file of worker {@code worker}: the executor's, out of the run's reach; each run overwrites it. */
    Path logFile(int worker) {
        return dir.resolve("worker-" + worker + ".log");
    }

    /** A run that did not exit 0 by itself fails, with its exit code and the first line of its log as reason. */
    static void check(ProcessRunner.Result result, Path log) throws RunFailed, IOException {
        if (result.exitCode() != 0 || result.killedBecause() != null) {
            String first = Files.readAllLines(log).stream().findFirst().orElse("(no output)");
            // Paths differ from run to run; without them, runs that failed alike count as one reason.
            throw new RunFailed("exit " + result.exitCode()
                    + (result.killedBecause() == null ? "" : ", killed: " + result.killedBecause())
                    + ": " + first.replaceAll("/[^\\s:]+", "<path>"));
        }
    }
}
