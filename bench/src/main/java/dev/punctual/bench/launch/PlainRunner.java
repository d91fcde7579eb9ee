package dev.punctual.bench.launch;

import dev.punctual.bench.FixedThreads.Trial;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The executor's launch without the sandbox: the binary runs as the executor's own user. */
final class PlainRunner implements LaunchPath {
    private final RunnerSettings settings;

    PlainRunner(RunnerSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        // Without a uid of its own a run never goes through the launcher: the helper per run, or the tools.
        return "ProcessRunner, " + (settings.runner().throughHelper() ? "helper" : "tools");
    }

    @Override
    public String description() {
        return "`ProcessRunner.start(binary, [], env, workDir, log)` + `await("
                + settings.timeout().toSeconds()
                + "s)`: "
                + (settings.runner().throughHelper()
                        ? "`punctual-sandbox -s -k --`"
                        : "`setsid setpriv " + "--pdeathsig KILL --`")
                + ", output piped to a log, then the group kill and the "
                + "scan of /proc/*/environ for the run's tag; one work directory per worker thread, reused";
    }

    @Override
    public Trial trial(int worker, Binary binary) throws IOException {
        Path workDir = Files.createDirectories(settings.dir().resolve("work-" + worker));
        Path log = settings.logFile(worker);
        return steps -> RunnerSettings.check(
                settings.runner()
                        .start(binary.path(), List.of(), settings.env(), workDir, log)
                        .await(settings.timeout()),
                log);
    }
}
