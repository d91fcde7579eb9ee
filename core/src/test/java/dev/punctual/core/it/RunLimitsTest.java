package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile binaries against the run limits, one test per limit, each as an ordinary job on the real executor in the
 * sandbox (root, as on CI here): the binary is stopped by its limit, the run's error names the limit where the
 * executor can tell which one it was, and the next run on the same executor is unharmed.
 */
class RunLimitsTest {
    private static final ScheduleSpec NOW = ScheduleSpec.now();
    private static final int BASE = 212_000;
    /** The executor-wide maxima of these tests: small, so hitting them is quick. */
    private static final RunLimits MAXIMA = new RunLimits(64, 256, 64, 64, 30, 64);

    @TempDir
    Path tmp;

    private Punctual p;
    private ExecutorPool pool;

    @BeforeEach
    void start() throws IOException {
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "run limits are tested in the sandbox, which needs root; these tests run as "
                        + System.getProperty("user.name"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        p = Fixture.stack(
                TestStack.isolatedSettings()
                        .executorConcurrency(2)
                        .limits(MAXIMA)
                        // The disk limit as watched: where no run can get a filesystem of its own (DiskLimitTest).
                        .sandbox(new SandboxConfig(true, BASE, 20, tmp.resolve("sandbox"), SandboxConfig.Network.SHARED)
                                .withDisk(SandboxConfig.Disk.WATCH, null))
                        .build(),
                Clock.systemUTC());
        pool = p.startExecutor("ex-limits", tmp.resolve("ex"), 1);
    }

    @AfterEach
    void stop() {
        if (pool != null) {
            pool.close();
        }
    }

    private record Ended(Run run, String log) {}

    private Ended run(byte[] binary, RunLimits limits, int timeoutSeconds) {
        String binaryId = Fixture.uploadBinary(p, OWNER, binary);
        JobView job = p.jobService.create(
                OWNER, Fixture.request("hostile", binaryId, null, NOW, timeoutSeconds, null, limits));
        Run run = await().atMost(Duration.ofSeconds(60))
                .until(() -> Fixture.runsOf(p, job.id()).get(0), r -> r.state().terminal());
        return new Ended(run, p.jobService.log(OWNER, job.id(), run.runId()));
    }

    private Ended run(String script, RunLimits limits, int timeoutSeconds) {
        return run(Fixture.script(script), limits, timeoutSeconds);
    }

    /** After each attack: an ordinary run on the same executor still succeeds. */
    private void theNextRunIsUnharmed() {
        Ended next = run("echo fine\n", null, 20);
        assertThat(next.run().state()).isEqualTo(RunState.SUCCEEDED);
        assertThat(next.log()).contains("fine");
    }

    @Test
    void aForkBombStopsAtItsProcessLimit() throws Exception {
        // Watched from outside: the most tasks any user of this test's pool had at once while the bomb ran.
        AtomicLong most = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        Thread watcher = Thread.ofPlatform().daemon().start(() -> {
            while (!done.get()) {
                most.accumulateAndGet(tasksOfPool(), Math::max);
            }
        });
        // Each process of the bomb stays (exec, not a fork: once the bomb fills the limit, a fork would fail and
        // end it early), so the bomb stays at its limit until the timeout. (A bomb whose processes end after their
        // fork fails rises to the limit and falls back within milliseconds where its orphans are reaped at once,
        // as the launcher reaps them: the watcher saw 3 at most then.)
        Ended e = run(
                "bomb() { bomb | bomb & exec sleep 30; }\nbomb\n", new RunLimits(24, null, null, null, null, null), 4);
        done.set(true);
        watcher.join();
        assertThat(e.run().state()).isEqualTo(RunState.DEAD);
        assertThat(e.run().error()).isEqualTo("timed out after 4s");
        assertThat(most.get())
                .as("the bomb reached its limit and never passed it; its log: %s", e.log())
                .isBetween(12L, 24L);
        theNextRunIsUnharmed();
    }

    @Test
    void aMemoryBalloonFailsAtItsMemoryLimit() throws Exception {
        byte[] balloon = compile("""
                #include <stdio.h>
                #include <stdlib.h>
                #include <string.h>
                int main(void) {
                    int mib = 0;
                    for (; mib < 500; mib++) {
                        char *p = malloc(1 << 20);
                        if (p == NULL) break;
                        memset(p, 1, 1 << 20);
                    }
                    printf("touched %d MiB\\n", mib);
                    return mib >= 500 ? 0 : 5;
                }
                """);
        Ended e = run(balloon, new RunLimits(null, 64, null, null, null, null), 20);
        int touched = Integer.parseInt(e.log().replaceAll("(?s).*touched (\\d+) MiB.*", "$1"));
        assertThat(touched).isBetween(1, 63);
        assertThat(e.run().error()).isEqualTo("exited with code 5");
        theNextRunIsUnharmed();
    }

    @Test
    void openingFilesStopsAtItsOpenFilesLimit() throws Exception {
        byte[] opener = compile("""
                #include <fcntl.h>
                #include <stdio.h>
                int main(void) {
                    int n = 0;
                    while (n < 5000 && open("/dev/null", O_RDONLY) >= 0) n++;
                    printf("opened %d\\n", n);
                    return n >= 5000 ? 0 : 4;
                }
                """);
        Ended e = run(opener, new RunLimits(null, null, 40, null, null, null), 20);
        // 40 descriptors, 3 of them stdin, stdout and stderr.
        assertThat(e.log()).contains("opened 37");
        assertThat(e.run().error()).isEqualTo("exited with code 4");
        theNextRunIsUnharmed();
    }

    @Test
    void aFileWrittenPastItsFileSizeLimitEndsTheRunNamingIt() {
        Ended e = run("head -c 20m /dev/zero > big\n", new RunLimits(null, null, null, 4, null, null), 20);
        assertThat(e.run().error())
                .isEqualTo("exited with code 153: exceeded its file size limit (fileSizeMb=4, SIGXFSZ)");
        theNextRunIsUnharmed();
    }

    @Test
    void spinningPastItsCpuTimeEndsTheRunNamingIt() {
        Ended e = run("while :; do :; done\n", new RunLimits(null, null, null, null, 1, null), 20);
        assertThat(e.run().error())
                .isEqualTo("exited with code 152: exceeded its CPU time limit (cpuSeconds=1, SIGXCPU)");
        theNextRunIsUnharmed();
    }

    @Test
    void fillingTheDiskEndsTheRunNamingItsDiskLimit() {
        // Files under the file-size limit each, 16 MiB in all, against 8 MiB of disk.
        Ended e = run(
                "trap 'echo got TERM' TERM\nfor i in 1 2 3 4; do head -c 4m /dev/zero > f$i; done\nsleep 30\n",
                new RunLimits(null, null, null, null, null, 8),
                40);
        assertThat(e.run().error()).startsWith("exceeded its disk limit (diskMb=8): it had ");
        // Killed at once: a TERM, and its grace, would have let it go on (here: run its trap).
        assertThat(e.log()).doesNotContain("got TERM");
        theNextRunIsUnharmed();
    }

    @Test
    void oneFileCannotOutgrowTheDiskEvenBeforeTheWatchLooks() {
        // No file size named: the run's is its diskMb, not the maximum (64), so the kernel stops the one file at
        // 8 MiB, where the watch could only look a second later.
        Ended e = run(
                "head -c 40m /dev/zero > big\ncode=$?\necho \"size=$(stat -c %s big)\"\nexit $code\n",
                new RunLimits(null, null, null, null, null, 8), 40);
        assertThat(e.run().error())
                .isEqualTo("exited with code 153: exceeded its file size limit (fileSizeMb=8 = diskMb, SIGXFSZ)");
        assertThat(e.log()).contains("size=" + 8 * 1024 * 1024);
        theNextRunIsUnharmed();
    }

    @Test
    void whatARunWritesToTheSharedTempDirectoriesCountsAndIsRemovedAfterIt() {
        Ended e = run(
                "d=$(mktemp -d /tmp/hostile.XXXXXX)\necho \"dir=$d\"\n"
                        + "for i in 1 2 3 4; do head -c 4m /dev/zero > $d/f$i; done\nsleep 30\n",
                new RunLimits(null, null, null, null, null, 8),
                40);
        assertThat(e.run().error()).startsWith("exceeded its disk limit (diskMb=8)");
        Path left = Path.of(e.log().replaceAll("(?s).*dir=(\\S+).*", "$1"));
        assertThat(left.toString()).startsWith("/tmp/hostile.");
        assertThat(left).doesNotExist();
        theNextRunIsUnharmed();
    }

    @Test
    void aJobCannotRaiseItsLimitsFromInside() {
        Ended e = run(
                "ulimit -n 64 && echo RAISED-NOFILE || echo nofile-held\n"
                        + "ulimit -p 1000 && echo RAISED-NPROC || echo nproc-held\n",
                new RunLimits(10, null, 32, null, null, null),
                20);
        assertThat(e.log()).contains("nofile-held", "nproc-held").doesNotContain("RAISED");
    }

    /** The tasks (processes and threads) of every user of this test's uid pool, from one scan of /proc. */
    private static long tasksOfPool() {
        long tasks = 0;
        try (var pids = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path pid : pids) {
                try {
                    int uid = -1;
                    long threads = 0;
                    for (String line : Files.readAllLines(pid.resolve("status"))) {
                        if (line.startsWith("Uid:")) {
                            uid = Integer.parseInt(line.split("\\s+")[1]);
                        } else if (line.startsWith("Threads:")) {
                            threads = Long.parseLong(line.substring(8).trim());
                        }
                    }
                    if (uid >= BASE && uid < BASE + 20) {
                        tasks += threads;
                    }
                } catch (IOException | RuntimeException gone) {
                    // Exited meanwhile.
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return tasks;
    }

    /** A C program, compiled here; skipped (saying why) without gcc. */
    private byte[] compile(String source) throws Exception {
        return Files.readAllBytes(Gcc.compile(tmp, "prog", source));
    }
}
