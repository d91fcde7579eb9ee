package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The log: stdout and stderr merged into one file, capped without blocking the binary. */
class ProcessRunnerOutputTest extends ScriptTestBase {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String MARKER = "[punctual: output truncated";

    @Test
    void stdoutAndStderrBothLandInTheLog() throws Exception {
        Path script = scripts.write("both", "echo to-out; echo to-err >&2; echo out-again");
        ProcessRunner.Result r = scripts.start(script).await(TIMEOUT);

        assertThat(r.exitCode()).isZero();
        assertThat(scripts.logLines()).containsExactly("to-out", "to-err", "out-again");
        assertThat(r.outputBytes()).isEqualTo(Files.size(scripts.log));
        assertThat(r.truncated()).isFalse();
    }

    @Test
    void outputUpToTheCapIsKeptWhole() throws Exception {
        // Exactly the cap: nothing is lost, so there is no marker.
        Path script = scripts.write("exact", "head -c 1000 /dev/zero | tr '\\0' x");
        ProcessRunner.Result r =
                scripts.start(1000, script, List.of(), Map.of()).await(TIMEOUT);

        assertThat(r.truncated()).isFalse();
        assertThat(r.outputBytes()).isEqualTo(1000);
        assertThat(scripts.log()).isEqualTo("x".repeat(1000));
    }

    @Test
    void outputBeyondTheCapIsTruncatedWithoutBlockingTheBinary() throws Exception {
        long cap = 64 * 1024;
        // 5 MB: far more than a pipe buffer, so the binary would hang if the runner stopped reading at the cap.
        Path script = scripts.write("flood", "head -c 5242880 /dev/zero | tr '\\0' y; echo done >&2; exit 0");
        long started = System.nanoTime();
        ProcessRunner.Result r = scripts.start(cap, script, List.of(), Map.of()).await(TIMEOUT);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
        assertThat(r.killedBecause())
                .as("finished by itself, not by the timeout")
                .isNull();
        assertThat(r.exitCode()).isZero();
        assertThat(r.truncated()).isTrue();
        assertThat(r.outputBytes()).isEqualTo(cap);

        String log = scripts.log();
        assertThat(log).startsWith("y".repeat((int) cap)).contains(MARKER + " at " + cap + " bytes]");
        assertThat(log.indexOf(MARKER)).isEqualTo((int) cap + 1);
        assertThat(log).as("output after the cap is dropped").doesNotContain("done");
        assertThat(Files.size(scripts.log)).isLessThan(cap + 200);
    }
}
