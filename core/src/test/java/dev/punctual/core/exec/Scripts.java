package dev.punctual.core.exec;

import dev.punctual.core.config.SandboxConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Test fixture: small /bin/sh scripts in a temporary directory, run through a {@link ProcessRunner} that starts them
 * through {@code helper} (null: through util-linux's tools).
 */
final class Scripts {
    static final Duration KILL_GRACE = Duration.ofMillis(500);

    final Path dir;
    final Path workDir;
    final Path log;
    final Path helper;

    Scripts(Path tempDir) throws IOException {
        this(tempDir, SandboxConfig.DEFAULT_HELPER);
    }

    Scripts(Path tempDir, Path helper) throws IOException {
        this.helper = helper;
        this.dir = Files.createDirectories(tempDir.resolve("bin"));
        this.workDir = Files.createDirectories(tempDir.resolve("work")).toRealPath();
        this.log = tempDir.resolve("run.log");
    }

    Path write(String name, String body) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    ProcessRunner.Handle start(long capBytes, Path script, List<String> args, Map<String, String> env)
            throws IOException {
        return runner(capBytes).start(script, args, env, workDir, log);
    }

    /** A runner that keeps {@code capBytes} of output, starting runs as this fixture says. */
    ProcessRunner runner(long capBytes) {
        return new ProcessRunner(capBytes, KILL_GRACE, helper);
    }

    ProcessRunner.Handle start(Path script) throws IOException {
        return start(1024 * 1024, script, List.of(), Map.of());
    }

    /** Writes the script {@code name} with {@code body} and starts it. */
    ProcessRunner.Handle start(String name, String body) throws IOException {
        return start(write(name, body));
    }

    String log() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    List<String> logLines() throws IOException {
        return Files.readAllLines(log, StandardCharsets.UTF_8);
    }
}
