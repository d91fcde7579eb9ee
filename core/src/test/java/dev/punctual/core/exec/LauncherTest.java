package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.limits.RunLimits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sandbox's launcher (core/src/main/c/launcher.c, {@link Launcher}): runs with a uid of their own start through
 * it; a run cannot talk to it, signal it or see its descriptors; it dies with whoever started it, and its runs with
 * it; a request it cannot understand is refused and changes nothing; every process of a run's uid is gone when the
 * run is reported; runs of one uid share a kept empty network, runs of two uids do not. Root only, with the helper
 * the build made (skipped otherwise, saying which).
 */
class LauncherTest {
    private static final Path HELPER = SandboxConfig.DEFAULT_HELPER;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    /** Uids of this test's own, above the sandbox's default pool. */
    private static final int UID = 64_100;

    @TempDir
    Path tmp;

    private Path work;
    private Path log;
    private ProcessRunner runner;

    @BeforeEach
    void rootWithTheHelper() throws IOException {
        assumeTrue(Sandbox.isRoot(), "needs root: a run's uid is changed");
        assumeTrue(Files.isExecutable(HELPER), "no " + HELPER + ": the build makes it on Linux with gcc");
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        work = Files.createDirectories(tmp.resolve("work"));
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
        log = tmp.resolve("run.log");
        runner = new ProcessRunner(64 * 1024, Duration.ofMillis(500), HELPER);
    }

    private ProcessRunner.Handle sh(int uid, boolean network, String script) throws IOException {
        return runner.start(
                Path.of("/bin/sh"),
                List.of("-c", script),
                Map.of(),
                work,
                log,
                new ProcessRunner.Confinement(uid, RunLimits.DEFAULT_MAXIMA, network));
    }

    private String logged() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    @Test
    void aRunWithAUidOfItsOwnStartsThroughTheLauncherAsItsChild() throws Exception {
        ProcessRunner.Handle h = sh(UID, false, "id -u; echo $PPID; exit 7");
        assertThat(h).isInstanceOf(Launcher.Launched.class);
        ProcessRunner.Result r = h.await(TIMEOUT);
        assertThat(r.exitCode()).isEqualTo(7);
        long launcher = Launcher.of(HELPER).pid();
        assertThat(logged()).isEqualTo(UID + "\n" + launcher + "\n");
        assertThat(r.outputBytes()).isEqualTo(logged().length());
        // The launcher is this JVM's child: it dies with it.
        assertThat(ProcessHandle.of(launcher).flatMap(ProcessHandle::parent).map(ProcessHandle::pid))
                .contains(ProcessHandle.current().pid());
    }

    @Test
    void aRunHoldsNothingOfTheLauncherAndCannotSignalIt() throws Exception {
        ProcessRunner.Handle h = sh(
                UID,
                false,
                "ls /proc/self/fd; ls /proc/$PPID/fd >/dev/null 2>&1 && echo read-fds;"
                        + " kill -9 $PPID 2>/dev/null && echo killed; kill -STOP $PPID 2>/dev/null && echo stopped;"
                        + " exit 0");
        long launcher = Launcher.of(HELPER).pid();
        ProcessRunner.Result r = h.await(TIMEOUT);
        assertThat(r.exitCode()).isZero();
        // Its input, output and error (the log's pipe), and the descriptor ls opened to list them: nothing else.
        assertThat(logged().lines().toList()).containsExactly("0", "1", "2", "3");
        assertThat(ProcessHandle.of(launcher).map(ProcessHandle::isAlive)).contains(true);
        // And it still serves.
        assertThat(sh(UID, false, "exit 3").await(TIMEOUT).exitCode()).isEqualTo(3);
    }

    @Test
    void everyProcessOfTheUidIsGoneWhenTheRunIsReported() throws Exception {
        // A daemon that leaves the run's session, and one that leaves its group: neither outlives the run.
        ProcessRunner.Handle h = sh(UID + 1, false, "setsid sleep 300 & (sleep 300 &) ; echo started");
        ProcessRunner.Result r = h.await(TIMEOUT);
        assertThat(r.exitCode()).isZero();
        assertThat(logged()).isEqualTo("started\n");
        assertThat(Sandbox.pidsOf(UID + 1)).isEmpty();
    }

    @Test
    void aGatedRunStartsOnlyWhenReleasedAndEndsUnstartedWhenClosed() throws Exception {
        Path ran = work.resolve("ran");
        ProcessRunner.Confinement c = new ProcessRunner.Confinement(UID + 2, RunLimits.DEFAULT_MAXIMA, false);
        ProcessRunner.Handle closed =
                runner.startGated(Path.of("/bin/sh"), List.of("-c", "touch " + ran), Map.of(), work, log, c);
        closed.closeGate();
        assertThat(closed.await(TIMEOUT).exitCode()).isEqualTo(ProcessRunner.NOT_RELEASED);
        assertThat(ran).doesNotExist();
        assertThat(closed.release()).as("a gate that is gone").isFalse();

        ProcessRunner.Handle let =
                runner.startGated(Path.of("/bin/sh"), List.of("-c", "touch " + ran), Map.of(), work, log, c);
        assertThat(let.release()).isTrue();
        assertThat(let.await(TIMEOUT).exitCode()).isZero();
        assertThat(ran).exists();
    }

    @Test
    void aKillReachesTheRunsGroupAndTheTimeoutNamesItself() throws Exception {
        ProcessRunner.Handle h = sh(UID + 3, false, "echo up; sleep 300");
        await().atMost(TIMEOUT).until(() -> Files.exists(log) && logged().equals("up\n"));
        ProcessRunner.Result r = h.await(Duration.ofMillis(300));
        assertThat(r.exitCode()).isEqualTo(128 + 15);
        assertThat(r.killedBecause()).isEqualTo("timed out after 300ms");
        assertThat(Sandbox.pidsOf(UID + 3)).isEmpty();
    }

    @Test
    void theOutputIsCappedAndSaysSo() throws Exception {
        ProcessRunner small = new ProcessRunner(100, Duration.ofMillis(500), HELPER);
        ProcessRunner.Result r = small.start(
                        Path.of("/bin/sh"),
                        List.of("-c", "yes | head -c 100000"),
                        Map.of(),
                        work,
                        log,
                        new ProcessRunner.Confinement(UID + 4, RunLimits.DEFAULT_MAXIMA, false))
                .await(TIMEOUT);
        assertThat(r.exitCode()).isZero();
        assertThat(r.outputBytes()).isEqualTo(100);
        assertThat(r.truncated()).isTrue();
        assertThat(logged()).startsWith("y\n".repeat(50)).endsWith("[punctual: output truncated at 100 bytes]\n");
    }

    @Test
    void runsOfOneUidShareAKeptEmptyNetworkAndRunsOfTwoUidsDoNot() throws Exception {
        String probe = "readlink /proc/self/ns/net; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '";
        sh(UID + 5, true, probe).await(TIMEOUT);
        List<String> first = logged().lines().toList();
        sh(UID + 5, true, probe).await(TIMEOUT);
        List<String> again = logged().lines().toList();
        sh(UID + 6, true, probe).await(TIMEOUT);
        List<String> other = logged().lines().toList();
        sh(UID + 6, false, probe).await(TIMEOUT);
        List<String> host = logged().lines().toList();

        // Only a loopback (down: nothing is reachable), in a namespace that is not the host's.
        assertThat(first).hasSize(2).endsWith("lo");
        assertThat(first.get(0)).isNotEqualTo(host.get(0));
        assertThat(again).isEqualTo(first);
        assertThat(other.get(0)).isNotEqualTo(first.get(0)).isNotEqualTo(host.get(0));
    }

    @Test
    void theLauncherDiesWithWhoeverStartedItAndItsRunsWithIt() throws Exception {
        // Started by a shell instead of this JVM, so that its starter can be killed here. (A job in the background
        // gets /dev/null as its input before its own redirections: the shell's input goes through descriptor 3.)
        Process shell = new ProcessBuilder(
                        "/bin/sh", "-c", "exec 3<&0; \"$0\" --serve $$ <&3 3<&- & wait", HELPER.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader answers =
                new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.US_ASCII));
        OutputStream requests = shell.getOutputStream();
        int uid = UID + 7;
        requests.write(Launcher.frame(start("1", uid, "/bin/sleep", "300")));
        requests.flush();
        String started = answers.readLine();
        assertThat(started).startsWith("started 1 ");
        long run = Long.parseLong(started.split(" ")[2]);
        long launcher = ProcessHandle.of(run)
                .flatMap(ProcessHandle::parent)
                .orElseThrow()
                .pid();
        assertThat(ProcessHandle.of(launcher).flatMap(ProcessHandle::parent).map(ProcessHandle::pid))
                .contains(shell.pid());

        shell.destroyForcibly();
        await().atMost(TIMEOUT)
                .until(() -> gone(launcher) && Sandbox.pidsOf(uid).isEmpty());
    }

    @Test
    void aRequestItCannotUnderstandIsRefusedAndChangesNothing() throws Exception {
        Process launcher = new ProcessBuilder(
                        HELPER.toString(),
                        "--serve",
                        Long.toString(ProcessHandle.current().pid()))
                .redirectError(ProcessBuilder.Redirect.PIPE)
                .start();
        BufferedReader answers =
                new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.US_ASCII));
        OutputStream requests = launcher.getOutputStream();
        Path made = work.resolve("made");
        List<List<String>> bad = List.of(
                List.of("run", "1", "/bin/touch", made.toString()),
                start("x1", UID + 8, "/bin/touch", made.toString()),
                // No uid of its own: nothing would end every process of the run.
                withoutUid(start("2", UID + 8, "/bin/touch", made.toString())),
                List.of("start", "3", "/", "relative.log", "10", "1", "punctual-sandbox", "0"),
                List.of("signal", "4", "HUP"));
        for (List<String> request : bad) {
            requests.write(Launcher.frame(request));
        }
        // A frame whose last field is not NUL-ended.
        requests.write(new byte[] {3, 0, 0, 0, 'a', 'b', 'c'});
        requests.flush();
        List<String> refused = new ArrayList<>();
        for (int i = 0; i < bad.size() + 1; i++) {
            refused.add(answers.readLine());
        }
        assertThat(refused)
                .containsExactly(
                        "refused 1 not a request: run",
                        "refused - not a new run's id",
                        "refused 2 no -u: every run here has a uid of its own, which ends it",
                        "refused 3 bad CWD, LOG, CAP or ARGC",
                        "refused 4 not a request: signal",
                        "refused - not a request: not NUL-ended");
        assertThat(made).doesNotExist();

        // Still serving: a good request after them runs.
        requests.write(Launcher.frame(start("5", UID + 8, "/bin/touch", made.toString())));
        requests.flush();
        assertThat(answers.readLine()).startsWith("started 5 ");
        assertThat(answers.readLine()).startsWith("exit 5 0 0 0 0");
        assertThat(made).exists();

        // A length it cannot skip ends it: its input is not the executor's any more.
        requests.write(new byte[] {0, 0, 0, 0x7f});
        requests.flush();
        assertThat(launcher.waitFor()).isEqualTo(110);
        assertThat(new String(launcher.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
                .contains("its input is not the executor's");
    }

    private List<String> start(String id, int uid, String... command) {
        List<String> args = new ArrayList<>(List.of("punctual-sandbox", "-u", Integer.toString(uid), "--"));
        args.addAll(List.of(command));
        List<String> fields = new ArrayList<>(
                List.of("start", id, work.toString(), log.toString(), "1000", Integer.toString(args.size())));
        fields.addAll(args);
        fields.add("0");
        return fields;
    }

    private static List<String> withoutUid(List<String> start) {
        List<String> out = new ArrayList<>(start);
        int u = out.indexOf("-u");
        out.remove(u + 1);
        out.remove(u);
        out.set(5, Integer.toString(Integer.parseInt(out.get(5)) - 2));
        return out;
    }

    /** Whether the process is gone or a zombie (nothing here may reap an orphan). */
    private static boolean gone(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                    .anyMatch(l -> l.startsWith("State:") && l.contains("Z"));
        } catch (IOException e) {
            return true;
        }
    }
}
