package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.exec.LoopDevices;
import dev.punctual.core.exec.Sandbox;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * diskMb as a hard limit: every run on a filesystem of its own (punctual.sandbox-disk=filesystem), on the real
 * executor as root. A binary writes as fast as the disk takes it, in large fsync'd writes to several files in its
 * directory and its temp directories, until the kernel refuses; what it got written, and what the image ever took
 * on the executor's disk (looked at every millisecond from outside), must stay within diskMb. Skipped, saying why,
 * without root, loop devices, mkfs.ext4 or the helper (built by this module's build on Linux with gcc).
 */
class DiskLimitTest {
    private static final int BASE = 214_000;
    private static final int DISK_MB = 64;
    private static final long LIMIT = DISK_MB * 1024L * 1024;
    private static final Path HELPER =
            Path.of("target", SandboxConfig.HELPER_NAME).toAbsolutePath();

    @TempDir
    Path tmp;

    /** The sandbox's directory: outside /tmp, which every run gets a fresh one of. */
    private Path sandboxDir;

    private Punctual p;
    private ExecutorPool pool;

    /**
     * Writes 1 MiB at a time, each fsync'd, to files in each directory in turn (a new one every 8 MiB) until every
     * one fails; with {@code --remove}, one file per directory, removed at the end.
     */
    private static final String FILLER = """
            #include <errno.h>
            #include <fcntl.h>
            #include <stdio.h>
            #include <string.h>
            #include <unistd.h>
            #define CHUNK (1 << 20)
            #define FILE_SIZE (8 << 20)
            static char buf[CHUNK];
            int main(int argc, char **argv) {
                int remove = argc > 1 && strcmp(argv[1], "--remove") == 0;
                int first = remove ? 2 : 1, n = argc - first, left = n, err = 0, files = 0;
                long long file_size = remove ? 1LL << 62 : FILE_SIZE;
                int fd[8], done[8] = {0};
                long long in_file[8] = {0}, total = 0;
                char path[8][4096];
                memset(buf, 'x', sizeof buf);
                for (int i = 0; i < n; i++) fd[i] = -1;
                while (left > 0) {
                    for (int i = 0; i < n; i++) {
                        if (done[i]) continue;
                        if (fd[i] < 0 || in_file[i] >= file_size) {
                            if (fd[i] >= 0) close(fd[i]);
                            snprintf(path[i], sizeof path[i], "%s/fill-%d-%d", argv[first + i], i, files++);
                            fd[i] = open(path[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
                            in_file[i] = 0;
                            if (fd[i] < 0) { err = errno; done[i] = 1; left--; continue; }
                        }
                        ssize_t w = write(fd[i], buf, CHUNK);
                        if (w > 0) { total += w; in_file[i] += w; }
                        if (w < 0 || fsync(fd[i]) != 0) { err = errno; done[i] = 1; left--; }
                    }
                }
                printf("wrote %lld bytes in %d files: %s\\n", total, files, strerror(err));
                if (remove) {
                    for (int i = 0; i < n; i++) printf("removed %s: %d\\n", path[i], unlink(path[i]));
                }
                return 3;
            }
            """;

    /** Until its input closes: every millisecond, the most bytes its file ever had allocated, and its size. */
    private static final String WATCHER = """
            #include <poll.h>
            #include <stdio.h>
            #include <sys/stat.h>
            int main(int argc, char **argv) {
                long long most = 0, size = 0, seen = 0;
                struct pollfd in = { .fd = 0, .events = POLLIN };
                (void) argc;
                do {
                    struct stat st;
                    if (stat(argv[1], &st) == 0) {
                        seen++;
                        if (st.st_blocks * 512LL > most) most = st.st_blocks * 512LL;
                        if (st.st_size > size) size = st.st_size;
                    }
                } while (poll(&in, 1, 1) == 0);
                printf("%lld %lld %lld\\n", most, size, seen);
                return 0;
            }
            """;

    @BeforeEach
    void start() throws IOException {
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "a run's own filesystem needs root; these tests run as " + System.getProperty("user.name"));
        assumeTrue(Files.exists(Path.of("/dev/loop-control")), "no loop devices here (/dev/loop-control)");
        assumeTrue(
                Files.isExecutable(Path.of("/usr/sbin/mkfs.ext4")) || Files.isExecutable(Path.of("/sbin/mkfs.ext4")),
                "no mkfs.ext4 (e2fsprogs) here");
        assumeTrue(Files.isExecutable(HELPER), "no " + HELPER + ": the build makes it on Linux with gcc");
        sandboxDir = Files.createDirectories(sandboxParent().resolve("disk-limit-" + UUID.randomUUID()));
        // Filesystem, not auto: here the executor can give every run one, and must, or the test fails.
        p = Fixture.stack(
                TestStack.isolatedSettings()
                        .executorConcurrency(1)
                        .sandbox(new SandboxConfig(true, BASE, 1, sandboxDir, SandboxConfig.Network.SHARED)
                                .withDisk(SandboxConfig.Disk.FILESYSTEM, HELPER))
                        .build(),
                Clock.systemUTC());
        pool = p.startExecutor("ex-disk", tmp.resolve("ex"), 1);
    }

    /**
     * Where the runs' directories go: never under a temp directory, which a run's own is mounted over (the sandbox
     * refuses that). The module's target/, unless the checkout itself is under one (a clone in /tmp): then
     * /var/lib, which these root-only tests may write.
     */
    private static Path sandboxParent() throws IOException {
        Path target = Path.of("target").toAbsolutePath();
        boolean underTemp = Stream.of("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
                .map(Path::of)
                .anyMatch(target::startsWith);
        return underTemp ? Files.createDirectories(Path.of("/var/lib/punctual-tests")) : target;
    }

    @AfterEach
    void stop() {
        if (pool != null) {
            pool.close();
        }
        if (sandboxDir != null) {
            deleteTree(sandboxDir);
        }
    }

    @Test
    void writingAsFastAsItCanIntoItsDirectoryAndTempSpaceStopsAtDiskMb() throws Exception {
        Ended e = fill(List.of(".", "/tmp", "/var/tmp", "/dev/shm"));
        long wrote = e.wrote();
        assertThat(wrote).as("what the kernel took, of " + LIMIT).isLessThanOrEqualTo(LIMIT);
        // Stopped by the disk, not by anything else: most of it was the run's (ext4 keeps a few % for itself).
        assertThat(wrote).isGreaterThan(LIMIT * 9 / 10);
        assertThat(e.log()).contains(": No space left on device");
        assertThat(e.run().error()).isEqualTo("exited with code 3: its disk was full (diskMb=" + DISK_MB + ")");
        e.imageStayedWithinTheLimit();
        nothingIsLeft();
    }

    @Test
    void oneFileInTempWrittenSyncedAndRemovedStopsAtDiskMbToo() throws Exception {
        // The attack that passed the watch: one file far larger than the limit, synced, removed before a look.
        Ended e = fill(List.of("--remove", "/tmp"));
        assertThat(e.wrote()).isLessThanOrEqualTo(LIMIT).isGreaterThan(LIMIT * 9 / 10);
        assertThat(e.log()).contains(": No space left on device").contains(": 0\n");
        // Empty again at its end: the binary's exit is all the run's error says.
        assertThat(e.run().error()).isEqualTo("exited with code 3");
        e.imageStayedWithinTheLimit();
        nothingIsLeft();
    }

    @Test
    void runsOfOneUidOneAfterAnotherEachGetAFreshEmptyFilesystem() throws Exception {
        Path filler = Gcc.compile(tmp, "filler", FILLER);
        String binaryId = Fixture.uploadBinary(p, OWNER, Files.readAllBytes(filler));
        for (int i = 0; i < 2; i++) {
            Ended e = run(binaryId, List.of(".", "/tmp"));
            assertThat(e.wrote()).isBetween(LIMIT * 9 / 10, LIMIT);
        }
        nothingIsLeft();
    }

    @Test
    void itsTempDirectoriesAreItsOwnEmptyOnesOnItsFilesystemWithNoSetuidOrDevices() throws Exception {
        String planted = "planted-" + UUID.randomUUID();
        List<String> temps = Stream.of("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
                .filter(d -> Files.isDirectory(Path.of(d)))
                .toList();
        String script = "for d in . " + String.join(" ", temps) + "; do\n"
                + "  echo \"$d dev=$(stat -c %d $d) mode=$(stat -c %a $d) entries=$(ls -A $d | wc -l)"
                + " opts=$(awk -v d=$(cd $d && pwd -P) '$5 == d { o = $6 } END { print o }' /proc/self/mountinfo)\"\n"
                + "done\ntouch /tmp/" + planted + " && echo planted\n";
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script(script));
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("temps", binaryId, ScheduleSpec.now())
                        .maxAttempts(1)
                        .build());
        Run run = await().atMost(Duration.ofSeconds(60))
                .until(() -> Fixture.runsOf(p, job.id()).get(0), r -> r.state().terminal());
        String log = p.jobService.log(OWNER, job.id(), run.runId());
        assertThat(run.state()).as(log).isEqualTo(RunState.SUCCEEDED);
        List<String> lines = log.lines().filter(l -> l.contains(" dev=")).toList();
        assertThat(lines).hasSize(1 + temps.size());
        String dev = lines.get(0).replaceAll(".* dev=(\\d+) .*", "$1");
        for (String line : lines) {
            // One filesystem for all, nothing in any at the start; each nosuid,nodev.
            assertThat(line).contains(" dev=" + dev + " ", " entries=0 ").containsPattern("opts=\\S*nosuid,nodev");
        }
        assertThat(lines.get(0)).contains(" mode=700 ");
        assertThat(lines.subList(1, lines.size())).allSatisfy(l -> assertThat(l).contains(" mode=1777 "));
        assertThat(log).contains("planted");
        assertThat(Path.of("/tmp", planted)).as("the host's /tmp").doesNotExist();
        nothingIsLeft();
    }

    private record Ended(Run run, String log, long mostAllocated, long largestSize, long looks) {
        long wrote() {
            return Long.parseLong(log.replaceAll("(?s).*wrote (\\d+) bytes.*", "$1"));
        }

        /**
         * The image, looked at every millisecond while the run wrote: it never took more of the executor's disk
         * than the limit (plus what the host filesystem keeps about the file itself, its extent tree: a few KiB),
         * nor grew past it.
         */
        void imageStayedWithinTheLimit() {
            assertThat(looks).as("the image was looked at while it existed").isGreaterThan(10);
            assertThat(largestSize).isEqualTo(LIMIT);
            assertThat(mostAllocated).isLessThanOrEqualTo(LIMIT + 64 * 1024);
        }
    }

    /** Runs the filler with {@code args}, the image watched from outside meanwhile. */
    private Ended fill(List<String> args) throws Exception {
        Path filler = Gcc.compile(tmp, "filler", FILLER);
        return run(Fixture.uploadBinary(p, OWNER, Files.readAllBytes(filler)), args);
    }

    private Ended run(String binaryId, List<String> args) throws Exception {
        Path watcher = Gcc.compile(tmp, "watcher", WATCHER);
        // The pool has one uid, so this is the run's image.
        Path image = sandboxDir.resolve("disks").resolve(BASE + ".img");
        Process watching = new ProcessBuilder(watcher.toString(), image.toString()).start();
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("filler", binaryId, ScheduleSpec.now())
                        .args(args)
                        .timeoutSeconds(120)
                        .maxAttempts(1)
                        .limits(new RunLimits(null, null, null, null, null, DISK_MB))
                        .build());
        Run run = await().atMost(Duration.ofSeconds(150))
                .until(() -> Fixture.runsOf(p, job.id()).get(0), r -> r.state().terminal());
        watching.getOutputStream().close();
        assertThat(watching.waitFor(10, TimeUnit.SECONDS)).isTrue();
        String[] seen = new String(watching.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .trim()
                .split(" ");
        assertThat(run.state()).isEqualTo(RunState.DEAD);
        return new Ended(
                run,
                p.jobService.log(OWNER, job.id(), run.runId()),
                Long.parseLong(seen[0]),
                Long.parseLong(seen[1]),
                Long.parseLong(seen[2]));
    }

    /**
     * Once the run has ended: no process of its uid, no mount of its filesystem in any namespace, no loop device
     * attached to its image, no image, no directory.
     */
    private void nothingIsLeft() throws IOException {
        assertThat(Sandbox.pidsOf(BASE)).isEmpty();
        // The kernel frees the loop device a few milliseconds after the unmount, by itself.
        await().atMost(Duration.ofSeconds(5))
                .until(() -> LoopDevices.on(sandboxDir).isEmpty());
        assertThat(mountsOf(sandboxDir)).isEmpty();
        try (Stream<Path> images = Files.list(sandboxDir.resolve("disks"))) {
            assertThat(images).isEmpty();
        }
        try (DirectoryStream<Path> runs = Files.newDirectoryStream(sandboxDir, "run-*")) {
            assertThat(runs).isEmpty();
        }
    }

    /** Lines of any process's mountinfo (so in any mount namespace) that name something under {@code dir}. */
    private static List<String> mountsOf(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path pid : pids) {
                try {
                    Files.readAllLines(pid.resolve("mountinfo")).stream()
                            .filter(l -> l.contains(dir.toString()))
                            .forEach(l -> out.add(pid.getFileName() + ": " + l));
                } catch (IOException | RuntimeException gone) {
                    // Exited meanwhile.
                }
            }
        }
        return out;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(java.util.Comparator.reverseOrder())
                    .forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // Best effort: under target/.
        }
    }
}
