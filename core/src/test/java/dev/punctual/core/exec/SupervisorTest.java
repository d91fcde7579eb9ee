package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The supervisor kills a run whose deadline passed, from a process of its own (so a frozen executor JVM does not
 * stop it), and leaves alone a run whose deadline keeps moving.
 */
class SupervisorTest extends ScriptTestBase {
    private static final Duration LONG = Duration.ofSeconds(60);

    /** Both loops: bash's, which the executor uses where there is bash, and the POSIX shell's. */
    static List<String> shells() {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no /bin/bash here: the bash loop cannot be tested");
        return List.of("bash", "sh");
    }

    static List<String> loop(String shell) {
        return shell.equals("bash")
                ? List.of("/bin/bash", "-c", Supervisor.BASH_SCRIPT)
                : List.of("/bin/sh", "-c", Supervisor.SH_SCRIPT);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shells")
    void aRunWhoseDeadlinePassesIsKilledAndTheExecutorIsToldSo(String shell) throws Exception {
        ProcessRunner.Handle h = scripts.start(scripts.write("long", "echo started; sleep 60; echo finished"));
        try (Supervisor s = new Supervisor(temp.resolve("deadlines"), loop(shell))) {
            long armedAt = System.currentTimeMillis();
            s.arm("run-a", h.pid(), null, armedAt + 500);
            ProcessRunner.Result r = h.await(LONG);
            long killedAfter = System.currentTimeMillis() - armedAt;
            assertThat(r.killedBecause())
                    .as("the executor itself did not kill it")
                    .isNull();
            assertThat(r.exitCode()).isEqualTo(128 + 9);
            assertThat(killedAfter).isBetween(500L, 500 + 5 * Supervisor.POLL_MS + 2000);
            assertThat(s.disarm("run-a"))
                    .as("the executor learns the supervisor killed it")
                    .isTrue();
            assertThat(scripts.log()).contains("started").doesNotContain("finished");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shells")
    void aDeadlineThatKeepsMovingKillsNothingAndAFinishedRunIsDisarmed(String shell) throws Exception {
        ProcessRunner.Handle h = scripts.start(scripts.write("short", "sleep 2; echo finished"));
        try (Supervisor s = new Supervisor(temp.resolve("deadlines"), loop(shell))) {
            s.arm("run-b", h.pid(), null, System.currentTimeMillis() + 700);
            // Heartbeats, as the executor's: every 200 ms the deadline moves 700 ms ahead, past the binary's end.
            ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();
            beats.scheduleAtFixedRate(
                    () -> {
                        try {
                            s.extend("run-b", h.pid(), null, System.currentTimeMillis() + 700);
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    },
                    200,
                    200,
                    TimeUnit.MILLISECONDS);
            ProcessRunner.Result r;
            try {
                r = h.await(LONG);
            } finally {
                beats.shutdownNow();
            }
            assertThat(r.exitCode()).isZero();
            assertThat(s.disarm("run-b")).isFalse();
            assertThat(scripts.log()).contains("finished");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shells")
    void aRunArmedBeforeItsBinaryStartsIsKilledByItsUidAndCannotBeMovedAfterwards(String shell) throws Exception {
        assumeTrue(Sandbox.isRoot(), "runs the binary under a uid of its own, which needs root");
        String uid = "64123";
        try (Supervisor s = new Supervisor(temp.resolve("deadlines"), loop(shell))) {
            // As the executor does: armed by uid before the start, since the process group is not known yet.
            s.arm("run-c", null, Integer.valueOf(uid), System.currentTimeMillis() + 500);
            Process p = new ProcessBuilder("setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "sleep", "60")
                    .start();
            assertThat(p.waitFor(10, TimeUnit.SECONDS))
                    .as("killed by its uid, its group unknown to the supervisor")
                    .isTrue();
            assertThat(p.exitValue()).isEqualTo(128 + 9);
            assertThat(s.extend("run-c", p.pid(), Integer.valueOf(uid), System.currentTimeMillis() + 60_000))
                    .as("a deadline that passed is not moved: the executor kills a binary it started too late")
                    .isFalse();
            assertThat(s.disarm("run-c")).isTrue();
        }
    }

    @Test
    void theMarginKillsBeforeTheLeaseEnds() {
        assertThat(Supervisor.margin(Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(1));
        assertThat(Supervisor.margin(Duration.ofSeconds(2))).isEqualTo(Duration.ofMillis(500));
    }
}
