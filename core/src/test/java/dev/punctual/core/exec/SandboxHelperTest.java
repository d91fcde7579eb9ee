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
 * The helper that mounts a run's filesystem (core/src/main/c/punctual-sandbox.c), on its own: each way it can fail
 * exits with its documented code and says why on stderr, before running anything, and leaves no loop device
 * attached. (What it does when it succeeds: DiskLimitTest.) Skipped without the helper, which the build makes on
 * Linux with gcc; the cases past the arguments need root.
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

    private record Exit(int code, String stderr) {}

    private static Exit helper(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(HELPER.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return new Exit(p.exitValue(), err);
    }

    @Test
    void badArgumentsExit110SayingWhatIsWrong() throws Exception {
        String d = dir.toString();
        assertThat(helper()).isEqualTo(new Exit(110, USAGE));
        assertThat(helper("/i.img", d, "1000", "1000", "/tmp")).as("no --").isEqualTo(new Exit(110, USAGE));
        assertThat(helper("/i.img", d, "1000", "1000", "--")).as("no command").isEqualTo(new Exit(110, USAGE));
        assertThat(helper("/i.img", d, "0", "1000", "--", "/bin/true"))
                .isEqualTo(new Exit(110, "punctual-sandbox: uid 0: invalid\n"));
        assertThat(helper("/i.img", d, "1000", "-1", "--", "/bin/true"))
                .isEqualTo(new Exit(110, "punctual-sandbox: gid -1: invalid\n"));
        assertThat(helper("/i.img", d, "12x", "1000", "--", "/bin/true"))
                .isEqualTo(new Exit(110, "punctual-sandbox: uid 12x: invalid\n"));
        assertThat(helper("/i.img", d, "4294967295", "1000", "--", "/bin/true").code())
                .isEqualTo(110);
        assertThat(helper("i.img", d, "1000", "1000", "--", "/bin/true"))
                .isEqualTo(new Exit(110, "punctual-sandbox: not an absolute path of a sane length: i.img: invalid\n"));
        assertThat(helper("/i.img", d, "1000", "1000", "--", "true").code())
                .as("a command searched on PATH")
                .isEqualTo(110);
        // Its directory would vanish under the fresh /tmp bound over it.
        assertThat(helper("/i.img", "/tmp/run", "1000", "1000", "/var/tmp", "/tmp", "--", "/bin/true"))
                .isEqualTo(new Exit(110, "punctual-sandbox: /tmp/run is under /tmp: invalid\n"));
    }

    private static final String USAGE = "usage: punctual-sandbox IMAGE DIR UID GID [TEMP...] -- COMMAND [ARG...]\n";

    @Test
    void whatCannotBeMountedOrRunExitsWithItsOwnCodeAndLeavesNoLoopDevice() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting needs root");
        assumeTrue(Files.exists(Path.of("/dev/loop-control")), "no loop devices here");
        String d = dir.toString();
        Path missing = tmp.resolve("missing.img");
        Exit noImage = helper(missing.toString(), d, "1000", "1000", "--", "/bin/true");
        assertThat(noImage.code()).isEqualTo(113);
        assertThat(noImage.stderr()).isEqualTo("punctual-sandbox: " + missing + ": No such file or directory\n");

        Path zeros = tmp.resolve("zeros.img");
        try (RandomAccessFile f = new RandomAccessFile(zeros.toFile(), "rw")) {
            f.setLength(1024 * 1024);
        }
        Exit notExt4 = helper(zeros.toString(), d, "1000", "1000", "--", "/bin/true");
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
        Exit noDir = helper(image.toString(), tmp.resolve("nowhere").toString(), "1000", "1000", "--", "/bin/true");
        assertThat(noDir.code()).isEqualTo(115);
        Exit noCommand = helper(image.toString(), d, "1000", "1000", "--", "/no/such/command");
        assertThat(noCommand)
                .isEqualTo(new Exit(119, "punctual-sandbox: /no/such/command: No such file or directory\n"));

        // Each loop device detaches itself when its last user is gone: the helper's, when it failed.
        await().atMost(Duration.ofSeconds(5)).until(() -> LoopDevices.on(tmp).isEmpty());
    }
}
