package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

    /**
     * A loop that takes one look at the deadlines (once {@code name}'s is written, and as if far in the future),
     * where {@code mv} first waits for the file {@code go} when its target ends in {@code pauseBefore}, telling
     * so by the file {@code paused}; {@code done} is written after the look.
     */
    private List<String> oneLookPausingAt(String shell, String name, String pauseBefore) {
        String prelude = """
                dir="$1"
                mv() {
                  case "$*" in *%s) touch "%s"; while [ ! -e "%s" ]; do sleep 0.02; done;; esac
                  command mv "$@"
                }
                while [ ! -e "$dir/%s.deadline" ]; do sleep 0.02; done
                now=99999999999999
                """.formatted(pauseBefore, temp.resolve("paused"), temp.resolve("go"), name);
        String after = """
                touch "%s"
                read -r _
                """.formatted(temp.resolve("done"));
        return List.of(shell.equals("bash") ? "/bin/bash" : "/bin/sh", "-c", prelude + Supervisor.KILL_PASSED + after);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shells")
    void aDeadlineDisarmedAsItPassesKillsNothingOfTheNextRunGivenItsUid(String shell) throws Exception {
        assumeTrue(Sandbox.isRoot(), "runs a binary under a uid of its own, which needs root");
        String uid = "64124";
        try (Supervisor s = new Supervisor(temp.resolve("deadlines"), oneLookPausingAt(shell, "run-d", ".killing"))) {
            s.arm("run-d", null, Integer.valueOf(uid), System.currentTimeMillis() - 1);
            // The supervisor has read the passed deadline; before it claims the kill, the run ends and is disarmed,
            // and its uid goes to the next run (found by the fault suite: that run was killed).
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(temp.resolve("paused")));
            assertThat(s.disarm("run-d")).as("not killed").isFalse();
            Process next = new ProcessBuilder(
                            "setpriv", "--reuid", uid, "--regid", uid, "--clear-groups", "sleep", "60")
                    .start();
            try {
                Files.createFile(temp.resolve("go"));
                await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(temp.resolve("done")));
                assertThat(next.waitFor(1, TimeUnit.SECONDS))
                        .as("the next run of that uid lives on")
                        .isFalse();
                assertThat(temp.resolve("deadlines")).isEmptyDirectory();
            } finally {
                next.destroyForcibly();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shells")
    void disarmWaitsForAKillUnderWaySoTheRunsUidIsNotGivenOnBeforeIt(String shell) throws Exception {
        try (Supervisor s = new Supervisor(temp.resolve("deadlines"), oneLookPausingAt(shell, "run-e", ".killed"))) {
            s.arm("run-e", null, null, System.currentTimeMillis() - 1);
            // The kill is claimed (.killing) and under way: the supervisor is held before it says it is done.
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(temp.resolve("paused")));
            CompletableFuture<Boolean> disarmed = CompletableFuture.supplyAsync(() -> s.disarm("run-e"));
            assertThatThrownBy(() -> disarmed.get(500, TimeUnit.MILLISECONDS))
                    .as("disarm waits while the kill is under way")
                    .isInstanceOf(TimeoutException.class);
            Files.createFile(temp.resolve("go"));
            assertThat(disarmed.get(10, TimeUnit.SECONDS))
                    .as("then learns the supervisor killed it")
                    .isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(temp.resolve("done")));
            assertThat(temp.resolve("deadlines")).isEmptyDirectory();
        }
    }

    @Test
    void theMarginKillsBeforeTheLeaseEnds() {
        assertThat(Supervisor.margin(Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(1));
        assertThat(Supervisor.margin(Duration.ofSeconds(2))).isEqualTo(Duration.ofMillis(500));
    }
}
