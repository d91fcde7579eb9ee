package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A binary started at a gate ({@link ProcessRunner#startGated}): its process chain is up, and the binary itself
 * runs only once released; a gate killed instead never runs it.
 */
class ProcessRunnerGateTest extends ScriptTestBase {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private ProcessRunner.Handle gated(Path binary, Map<String, String> env) throws IOException {
        return scripts.runner(1024 * 1024)
                .startGated(binary, List.of(), env, scripts.workDir, scripts.log, ProcessRunner.Confinement.NONE);
    }

    /**
     * The gate (the helper's, or the shell's without it), blocked in its read: until it is let through, it cannot
     * have exec'd the binary.
     */
    private boolean waitingAtTheGate(long pid) throws IOException {
        Path proc = Path.of("/proc/" + pid);
        String cmdline = Files.readString(proc.resolve("cmdline"), StandardCharsets.ISO_8859_1);
        String stat = Files.readString(proc.resolve("stat"), StandardCharsets.ISO_8859_1);
        String state = stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        String gate = scripts.runner(1).throughHelper() ? scripts.helper + "\0" : "/bin/sh\0-c\0";
        return cmdline.contains(gate) && state.equals("S");
    }

    @Test
    void theBinaryRunsOnlyOnceReleased() throws Exception {
        Path ran = scripts.workDir.resolve("ran");
        ProcessRunner.Handle h = gated(scripts.write("mark", "touch \"" + ran + "\"; echo started"), Map.of());
        await().atMost(TIMEOUT).until(() -> waitingAtTheGate(h.pid()));
        assertThat(ran).doesNotExist();

        assertThat(h.release()).isTrue();
        ProcessRunner.Result r = h.await(TIMEOUT);
        assertThat(r.exitCode()).isZero();
        assertThat(r.killedBecause()).isNull();
        assertThat(ran).exists();
        assertThat(scripts.log()).isEqualTo("started\n");
    }

    @Test
    void aGateKilledBeforeItsReleaseNeverRunsTheBinary() throws Exception {
        Path ran = scripts.workDir.resolve("ran");
        ProcessRunner.Handle h = gated(scripts.write("mark", "touch \"" + ran + "\""), Map.of());
        await().atMost(TIMEOUT).until(() -> waitingAtTheGate(h.pid()));

        h.kill("not let start");
        ProcessRunner.Result r = h.await(TIMEOUT);
        assertThat(r.killedBecause()).isEqualTo("not let start");
        assertThat(r.exitCode()).isNotZero();
        assertThat(h.release()).as("its gate is gone").isFalse();
        assertThat(ran).doesNotExist();
    }

    @Test
    void aGateWhoseInputEndsExitsWithoutRunningTheBinary() throws Exception {
        Path ran = scripts.workDir.resolve("ran");
        ProcessRunner.Handle h = gated(scripts.write("mark", "touch \"" + ran + "\""), Map.of());
        // The executor's end closes the pipe too (and its parent-death signal kills the gate).
        h.closeGate();
        ProcessRunner.Result r = h.await(TIMEOUT);
        assertThat(r.exitCode()).isEqualTo(ProcessRunner.NOT_RELEASED);
        assertThat(ran).doesNotExist();
    }

    @Test
    void theReleasedBinaryGetsExactlyTheEnvironmentPassedAndNothingFromTheGatesShell() throws Exception {
        // env(1) itself, not a script: a script's own shell would add PWD.
        ProcessRunner.Handle h = gated(Path.of("/usr/bin/env"), Map.of("GREETING", "hello world"));
        assertThat(h.release()).isTrue();
        ProcessRunner.Result r = h.await(TIMEOUT);
        assertThat(r.exitCode()).isZero();
        Set<String> names = scripts.logLines().stream()
                .map(l -> l.substring(0, l.indexOf('=')))
                .collect(Collectors.toSet());
        assertThat(names).containsExactlyInAnyOrder("PATH", "HOME", "TMPDIR", "GREETING", ProcessRunner.TAG);
    }
}
