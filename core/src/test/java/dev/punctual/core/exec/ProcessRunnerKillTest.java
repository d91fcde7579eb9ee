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

    /** What an await returned, and how long it took. */
    private record Timed(ProcessRunner.Result result, Duration took) {}

    private static Timed timedAwait(ProcessRunner.Handle h, Duration timeout) throws InterruptedException {
        long started = System.nanoTime();
        ProcessRunner.Result r = h.await(timeout);
        return new Timed(r, Duration.ofNanos(System.nanoTime() - started));
    }

    /** Waits until the process whose pid {@code pidFile} holds is gone. */
    private static void awaitGone(Path pidFile) throws Exception {
        long pid = readPid(pidFile);
        await().atMost(Duration.ofSeconds(5)).until(() -> !alive(pid));
    }

    /** Starts a script that writes its pid to {@code ready}, then sleeps for a minute. */
    private ProcessRunner.Handle startWaiter(Path ready) throws Exception {
        return scripts.start("waiter", "echo $$ > '" + ready + "'\nsleep 60");
    }

    @Test
    void timeoutKillsTheBinary() throws Exception {
        ProcessRunner.Handle h = scripts.start("slow", "echo started; sleep 60; echo finished");
        Timed t = timedAwait(h, Duration.ofSeconds(1));
        ProcessRunner.Result r = t.result();

        assertThat(t.took()).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(8));
        assertThat(r.killedBecause()).contains("timed out");
        assertThat(r.exitCode()).isNotZero();
        assertThat(scripts.log()).contains("started").doesNotContain("finished");
        assertThat(alive(h.pid())).isFalse();
    }

    @Test
    void aBinaryIgnoringTermIsKilledAfterTheGracePeriod() throws Exception {
        Path ready = temp.resolve("ready");
        ProcessRunner.Handle h =
                scripts.start("stubborn", "trap '' TERM\necho $$ > '" + ready + "'\nsleep 60\nsleep 60");
        readPid(ready);

        Timed t = timedAwait(h, Duration.ofMillis(200));
        ProcessRunner.Result r = t.result();

        // TERM was ignored, so the runner waited out the grace period and then sent KILL.
        assertThat(t.took()).isBetween(Scripts.KILL_GRACE, Duration.ofSeconds(8));
        assertThat(r.killedBecause()).contains("timed out");
        assertThat(r.exitCode()).isEqualTo(128 + 9);
        assertThat(alive(h.pid())).isFalse();
    }

    @Test
    void childrenLeftBehindByTheBinaryDieWithIt() throws Exception {
        Path childPid = temp.resolve("child.pid");
        ProcessRunner.Handle h = scripts.start("daemonize", "sleep 300 &\necho $! > '" + childPid + "'\nexit 0");
        ProcessRunner.Result r = h.await(LONG);

        assertThat(r.exitCode()).isZero();
        assertThat(r.killedBecause()).isNull();
        awaitGone(childPid);
    }

    @Test
    void aDaemonThatLeftTheProcessGroupDiesWithTheRunToo() throws Exception {
        Path daemonPid = temp.resolve("daemon.pid");
        // setsid puts the daemon in a session (and group) of its own: a group kill cannot reach it.
        ProcessRunner.Handle h = scripts.start(
                "escape",
                "setsid sh -c 'echo $$ > \"" + daemonPid + "\"; exec sleep 300'"
                        + " < /dev/null > /dev/null 2>&1 &\n"
                        + "while [ ! -s '" + daemonPid + "' ]; do :; done\nexit 0");
        ProcessRunner.Result r = h.await(LONG);

        assertThat(r.exitCode()).isZero();
        awaitGone(daemonPid);
    }

    @Test
    void childrenOfATimedOutBinaryDieWithIt() throws Exception {
        Path childPid = temp.resolve("child.pid");
        ProcessRunner.Handle h = scripts.start("forker", "sleep 300 &\necho $! > '" + childPid + "'\nsleep 60");
        long pid = readPid(childPid);
        assertThat(alive(pid)).isTrue();

        ProcessRunner.Result r = h.await(Duration.ofMillis(500));

        assertThat(r.killedBecause()).contains("timed out");
        await().atMost(Duration.ofSeconds(5)).until(() -> !alive(pid));
    }

    @Test
    void killFromAnotherThreadStopsTheRunAndRecordsWhy() throws Exception {
        Path ready = temp.resolve("ready");
        ProcessRunner.Handle h = startWaiter(ready);
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
        ProcessRunner.Handle h = startWaiter(ready);
        readPid(ready);

        h.kill("first");
        h.kill("second");

        assertThat(h.await(LONG).killedBecause()).isEqualTo("first");
        assertThat(Optional.of(h.pid()).map(ProcessRunnerKillTest::alive)).contains(false);
    }
}
