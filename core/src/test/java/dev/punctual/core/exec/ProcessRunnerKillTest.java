package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Stopping a binary: at its timeout, on request, and its whole process group with it. */
class ProcessRunnerKillTest extends ScriptTestBase {
    private static final Duration LONG = Duration.ofSeconds(30);

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static long readPid(Path file) throws Exception {
        await().atMost(Duration.ofSeconds(5))
                .until(() -> Files.exists(file) && !Files.readString(file).isBlank());
        return Long.parseLong(Files.readString(file).trim());
    }

    @Test
    void timeoutKillsTheBinary() throws Exception {
        Path script = scripts.write("slow", "echo started; sleep 60; echo finished");
        ProcessRunner.Handle h = scripts.start(script);
        long started = System.nanoTime();
        ProcessRunner.Result r = h.await(Duration.ofSeconds(1));
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(took).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(8));
        assertThat(r.killedBecause()).contains("timed out");
        assertThat(r.exitCode()).isNotZero();
        assertThat(scripts.log()).contains("started").doesNotContain("finished");
        assertThat(alive(h.pid())).isFalse();
    }

    @Test
    void aBinaryIgnoringTermIsKilledAfterTheGracePeriod() throws Exception {
        Path ready = temp.resolve("ready");
        Path script = scripts.write("stubborn", "trap '' TERM\necho $$ > '" + ready + "'\nsleep 60\nsleep 60");
        ProcessRunner.Handle h = scripts.start(script);
        readPid(ready);

        long started = System.nanoTime();
        ProcessRunner.Result r = h.await(Duration.ofMillis(200));
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        // TERM was ignored, so the runner waited out the grace period and then sent KILL.
        assertThat(took).isBetween(Scripts.KILL_GRACE, Duration.ofSeconds(8));
        assertThat(r.killedBecause()).contains("timed out");
        assertThat(r.exitCode()).isEqualTo(128 + 9);
        assertThat(alive(h.pid())).isFalse();
    }

    @Test
    void childrenLeftBehindByTheBinaryDieWithIt() throws Exception {
        Path childPid = temp.resolve("child.pid");
        Path script = scripts.write("daemonize", "sleep 300 &\necho $! > '" + childPid + "'\nexit 0");
        ProcessRunner.Handle h = scripts.start(script);
        ProcessRunner.Result r = h.await(LONG);

        assertThat(r.exitCode()).isZero();
        assertThat(r.killedBecause()).isNull();
        long pid = readPid(childPid);
        await().atMost(Duration.ofSeconds(5)).until(() -> !alive(pid));
    }

    @Test
    void aDaemonThatLeftTheProcessGroupDiesWithTheRunToo() throws Exception {
        Path daemonPid = temp.resolve("daemon.pid");
        // setsid puts the daemon in a session (and group) of its own: a group kill cannot reach it.
        Path script = scripts.write(
                "escape",
                "setsid sh -c 'echo $$ > \"" + daemonPid + "\"; exec sleep 300'"
                        + " < /dev/null > /dev/null 2>&1 &\n"
                        + "while [ ! -s '" + daemonPid + "' ]; do :; done\nexit 0");
        ProcessRunner.Handle h = scripts.start(script);
        ProcessRunner.Result r = h.await(LONG);

        assertThat(r.exitCode()).isZero();
        long pid = readPid(daemonPid);
        await().atMost(Duration.ofSeconds(5)).until(() -> !alive(pid));
    }

    @Test
    void childrenOfATimedOutBinaryDieWithIt() throws Exception {
        Path childPid = temp.resolve("child.pid");
        Path script = scripts.write("forker", "sleep 300 &\necho $! > '" + childPid + "'\nsleep 60");
        ProcessRunner.Handle h = scripts.start(script);
        long pid = readPid(childPid);
        assertThat(alive(pid)).isTrue();

        ProcessRunner.Result r = h.await(Duration.ofMillis(500));

        assertThat(r.killedBecause()).contains("timed out");
        await().atMost(Duration.ofSeconds(5)).until(() -> !alive(pid));
    }

    @Test
    void killFromAnotherThreadStopsTheRunAndRecordsWhy() throws Exception {
        Path ready = temp.resolve("ready");
        Path script = scripts.write("waiter", "echo $$ > '" + ready + "'\nsleep 60");
        ProcessRunner.Handle h = scripts.start(script);
        CompletableFuture<ProcessRunner.Result> result = CompletableFuture.supplyAsync(() -> {
            try {
                return h.await(LONG);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(readPid(ready)).isEqualTo(h.pid());
        assertThat(result).isNotDone();

        h.kill("fenced off by another executor");

        ProcessRunner.Result r = result.get(10, TimeUnit.SECONDS);
        assertThat(r.killedBecause()).isEqualTo("fenced off by another executor");
        assertThat(r.exitCode()).isNotZero();
        assertThat(alive(h.pid())).isFalse();
    }

    @Test
    void onlyTheFirstKillReasonIsKept() throws Exception {
        Path ready = temp.resolve("ready");
        ProcessRunner.Handle h = scripts.start(scripts.write("waiter", "echo $$ > '" + ready + "'\nsleep 60"));
        readPid(ready);

        h.kill("first");
        h.kill("second");

        assertThat(h.await(LONG).killedBecause()).isEqualTo("first");
        assertThat(Optional.of(h.pid()).map(ProcessRunnerKillTest::alive)).contains(false);
    }
}
