package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The helper that puts a run into its sandbox (core/src/main/c/punctual-sandbox.c), on its own: each step asked for
 * holds in the binary it becomes (session, rlimits, user, groups, no_new_privs, network, parent-death signal, the
 * gate); each way it can fail exits with its documented code and says why on stderr, before running anything, and
 * leaves no loop device attached. (Its filesystem when it succeeds: DiskLimitTest; the executor's runs through it:
 * SandboxTest, HostileBinaryTest, RunLimitsTest.) Skipped without the helper, which the build makes on Linux with
 * gcc; the cases past the arguments and the plain steps need root.
 */
class SandboxHelperTest {
    private static final Path HELPER = Path.of("target", "punctual-sandbox").toAbsolutePath();

    @TempDir
    Path tmp;

    private Path dir;

    @BeforeEach
    void helperIsBuilt() throws IOException {
        assumeTrue(Files.isExecutable(HELPER), "no " + HELPER + ": the build makes it on Linux with gcc");
        dir = Files.createDirectories(tmp.resolve("run"));
    }

    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));
    /** This JVM's pid: the helper's parent here, as the executor's is in production. */
    private static final String JVM = Long.toString(ProcessHandle.current().pid());

    private record Exit(int code, String stderr) {}

    /** The standard output of the last {@link #helper} call. */
    private String lastRun;

    private Exit helper(String... args) throws Exception {
        Process p = start(List.of(args));
        p.getOutputStream().close();
        var out = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        lastRun = out.join();
        return new Exit(p.exitValue(), err);
    }

    private Process start(List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of(HELPER.toString()));
        command.addAll(args);
        return new ProcessBuilder(command).directory(dir.toFile()).start();
    }

    @Test
    void theTestsStartRunsThroughTheHelperTheBuildMade() {
        // Else every ProcessRunner test here would take the tools' chain, and the helper's go untested.
        assertThat(new ProcessRunner(1, Scripts.KILL_GRACE).throughHelper()).isTrue();
    }

    @Test
    void badArgumentsExit110SayingWhatIsWrong() throws Exception {
        String d = dir.toString();
        assertThat(helper()).isEqualTo(new Exit(110, "punctual-sandbox: no -- before COMMAND: (none): invalid\n"));
        assertThat(helper("-s", "/bin/true"))
                .as("an operand without --")
                .isEqualTo(new Exit(110, "punctual-sandbox: no -- before COMMAND: /bin/true: invalid\n"));
        assertThat(helper("-s", "--"))
                .as("no command")
                .isEqualTo(new Exit(110, "punctual-sandbox: no -- before" + " COMMAND: (none): invalid\n"));
        assertThat(helper("-x", "--", "/bin/true").code())
                .as("an unknown option")
                .isEqualTo(110);
        assertThat(helper("-u", "0", "--", "/bin/true")).isEqualTo(new Exit(110, "punctual-sandbox: uid 0: invalid\n"));
        assertThat(helper("-u", "-1", "--", "/bin/true"))
                .isEqualTo(new Exit(110, "punctual-sandbox: uid -1: invalid\n"));
        assertThat(helper("-u", "12x", "--", "/bin/true"))
                .isEqualTo(new Exit(110, "punctual-sandbox: uid 12x: invalid\n"));
        assertThat(helper("-u", "4294967295", "--", "/bin/true").code()).isEqualTo(110);
        assertThat(helper("-u", "1000:1", "--", "/bin/true").code()).isEqualTo(110);
        for (String pid : List.of("0", "-1", "x", "12:3", "4194305")) {
            assertThat(helper("-k", pid, "--", "/bin/true"))
                    .as("pid " + pid)
                    .isEqualTo(new Exit(110, "punctual-sandbox: pid " + pid + ": invalid\n"));
        }
        assertThat(helper("-r", "nofile=65:64", "--", "/bin/true"))
                .as("soft above hard")
                .isEqualTo(new Exit(110, "punctual-sandbox: rlimit nofile=65:64: invalid\n"));
        for (String bad : List.of(
                "core=1:1",
                "nofile=1",
                "nofile=:1",
                "nofile=1:",
                "nofile=-1:2",
                "nofile=1:2:3",
                "nofile= 1:2",
                "nofile=0x10:0x10",
                "nofile=18446744073709551615:18446744073709551615")) {
            assertThat(helper("-r", bad, "--", "/bin/true"))
                    .as(bad)
                    .isEqualTo(new Exit(110, "punctual-sandbox: " + "rlimit " + bad + ": invalid\n"));
        }
        assertThat(helper("-d", "i.img", "-w", d, "-u", "1000", "--", "/bin/true"))
                .isEqualTo(new Exit(110, "punctual-sandbox: not an absolute path of a sane length: i.img: invalid\n"));
        assertThat(helper("-s", "--", "true").code())
                .as("a command searched on PATH")
                .isEqualTo(110);
        assertThat(helper("-d", "/i.img", "-u", "1000", "--", "/bin/true").code())
                .as("-d without -w")
                .isEqualTo(110);
        assertThat(helper("-d", "/i.img", "-w", d, "--", "/bin/true").code())
                .as("-d without -u")
                .isEqualTo(110);
        assertThat(helper("-t", "/tmp", "--", "/bin/true").code())
                .as("-t without -d")
                .isEqualTo(110);
        // Its directory would vanish under the fresh /tmp bound over it.
        assertThat(helper(
                        "-d",
                        "/i.img",
                        "-w",
                        "/tmp/run",
                        "-u",
                        "1000",
                        "-t",
                        "/var/tmp",
                        "-t",
                        "/tmp",
                        "--",
                        "/bin/true"))
                .isEqualTo(new Exit(110, "punctual-sandbox: /tmp/run is under /tmp: invalid\n"));
    }

    @Test
    void eachStepAskedForHoldsInTheBinaryItBecomes() throws Exception {
        String report = "echo pid=$$; ps -o sid=,pgid= -p $$; ulimit -n; ulimit -t; ulimit -d; "
                + "grep -E '^(Uid|Gid|Groups|NoNewPrivs):' /proc/self/status; readlink /proc/self/ns/net";
        Exit plain = helper(
                "-s",
                "-r",
                "nofile=64:64",
                "-r",
                "cpu=5:6",
                "-r",
                "data=536870912:536870912",
                "--",
                "/bin/sh",
                "-c",
                report);
        assertThat(plain.code()).as(plain.stderr()).isZero();
        List<String> lines = lastRun.lines().toList();
        String pid = lines.get(0).substring("pid=".length());
        assertThat(lines.get(1).trim().split("\\s+"))
                .as("a session and process group of its own")
                .containsExactly(pid, pid);
        assertThat(lines.subList(2, 5)).containsExactly("64", "5", Long.toString(536870912L / 1024));
        String hostNet = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        assertThat(lines.getLast()).as("-n not asked: the host's network").isEqualTo(hostNet);

        assumeTrue(ROOT, "the change of user and the network namespace need root");
        Exit held = helper("-s", "-k", JVM, "-n", "-r", "nproc=10:10", "-u", "200777", "--", "/bin/sh", "-c", report);
        assertThat(held.code()).as(held.stderr()).isZero();
        assertThat(lastRun)
                .contains("Uid:\t200777\t200777\t200777\t200777")
                .contains("Gid:\t200777\t200777\t200777\t200777")
                .containsPattern("Groups:\\s*\n")
                .contains("NoNewPrivs:\t1");
        assertThat(lastRun.lines().toList().getLast())
                .as("a network of its own")
                .isNotEqualTo(hostNet);
    }

    @Test
    void aParentOtherThanTheExecutorNamedEndsItBeforeAnythingRuns() throws Exception {
        Path ran = dir.resolve("ran");
        // Its parent is this JVM, not pid 1: as if the executor had died and it had been handed to init.
        Exit orphan = helper("-s", "-k", "1", "--", "/bin/sh", "-c", "touch " + ran);
        assertThat(orphan)
                .isEqualTo(new Exit(124, "punctual-sandbox: the process that started it is gone: No such process\n"));
        assertThat(ran).doesNotExist();
        assertThat(helper("-s", "-k", JVM, "--", "/bin/sh", "-c", "touch " + ran)
                        .code())
                .isZero();
        assertThat(ran).exists();
    }

    @Test
    void theGateLetsTheBinaryStartOnlyOnALineAndExits125AtTheEndOfItsInput() throws Exception {
        Path ran = dir.resolve("ran");
        Process released = start(List.of("-s", "-g", "--", "/bin/sh", "-c", "touch " + ran + "; cat"));
        assertThat(ran).as("held at the gate").doesNotExist();
        released.getOutputStream().write("go\nnot for the binary\n".getBytes(StandardCharsets.UTF_8));
        released.getOutputStream().flush();
        assertThat(released.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(released.exitValue()).isZero();
        assertThat(ran).as("released").exists();
        assertThat(new String(released.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .as("the binary's input is /dev/null, not the gate's")
                .isEmpty();

        Files.delete(ran);
        Process closed = start(List.of("-s", "-g", "--", "/bin/sh", "-c", "touch " + ran));
        closed.getOutputStream().write("no newline".getBytes(StandardCharsets.UTF_8));
        closed.getOutputStream().close();
        assertThat(closed.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(closed.exitValue()).isEqualTo(ProcessRunner.NOT_RELEASED);
        assertThat(ran).doesNotExist();
    }

    @Test
    void theBinaryDiesWithTheProcessThatStartedItEvenAfterTheChangeOfUser() throws Exception {
        assumeTrue(ROOT, "the change of user needs root");
        // A parent that starts the helper, prints the pid it becomes, then waits: killed, its child must die too.
        Process parent = new ProcessBuilder(
                        "/bin/sh", "-c", HELPER + " -s -k $$ -u 200778 -- /bin/sleep 300 & echo $!; wait")
                .redirectErrorStream(true)
                .start();
        long child = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream()))
                .readLine()
                .trim());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ProcessHandle.of(child)
                        .flatMap(h -> h.info().command())
                        .filter(c -> c.endsWith("sleep"))
                        .isPresent());
        parent.destroyForcibly();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ProcessHandle.of(child).isEmpty());
    }

    @Test
    void whatCannotBeMountedOrRunExitsWithItsOwnCodeAndLeavesNoLoopDevice() throws Exception {
        assumeTrue(ROOT, "mounting needs root");
        assumeTrue(Files.exists(Path.of("/dev/loop-control")), "no loop devices here");
        String d = dir.toString();
        Path missing = tmp.resolve("missing.img");
        Exit noImage = helper("-d", missing.toString(), "-w", d, "-u", "1000", "--", "/bin/true");
        assertThat(noImage.code()).isEqualTo(113);
        assertThat(noImage.stderr()).isEqualTo("punctual-sandbox: " + missing + ": No such file or directory\n");

        Path zeros = tmp.resolve("zeros.img");
        try (RandomAccessFile f = new RandomAccessFile(zeros.toFile(), "rw")) {
            f.setLength(1024 * 1024);
        }
        Exit notExt4 = helper("-d", zeros.toString(), "-w", d, "-u", "1000", "--", "/bin/true");
        assertThat(notExt4.code()).isEqualTo(115);
        assertThat(notExt4.stderr())
                .startsWith("punctual-sandbox: mounting /dev/loop")
                .contains("(" + zeros + ") at " + d + ": Invalid argument");

        Path image = tmp.resolve("fs.img");
        Files.copy(zeros, image);
        Process mkfs = new ProcessBuilder(ProcessRunner.installed("mkfs.ext4"), "-q", "-F", image.toString())
                .redirectErrorStream(true)
                .start();
        assertThat(mkfs.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfs.exitValue()).isZero();
        Exit noDir = helper(
                "-d", image.toString(), "-w", tmp.resolve("nowhere").toString(), "-u", "1000", "--", "/bin/true");
        assertThat(noDir.code()).isEqualTo(115);
        Exit noCommand = helper("-d", image.toString(), "-w", d, "-u", "1000", "--", "/no/such/command");
        assertThat(noCommand)
                .isEqualTo(new Exit(119, "punctual-sandbox: /no/such/command: No such file or directory\n"));

        // Each loop device detaches itself when its last user is gone: the helper's, when it failed.
        await().atMost(Duration.ofSeconds(5)).until(() -> LoopDevices.on(tmp).isEmpty());
    }
}
