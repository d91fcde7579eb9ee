package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.exec.Sandbox;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile binaries against the sandbox (punctual.sandbox on, the executor root, as on CI here): each attack runs
 * as an ordinary job on the real executor and must fail. Skipped, saying why, where the tests do not run as root.
 */
class SandboxTest {
    private static final ScheduleSpec NOW = ScheduleSpec.now();
    private static final int BASE = 210_000;

    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    private Punctual p;
    private ExecutorPool pool;
    private Path workRoot;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "the sandbox changes users, which needs root; these tests run as " + System.getProperty("user.name"));
        // The documented requirement: other users can traverse every directory above the sandbox's.
        Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        p = sandboxed(2, new SandboxConfig(true, BASE, 50, tmp.resolve("sandbox"), SandboxConfig.Network.SHARED));
        workRoot = tmp.resolve("ex");
        pool = executors.start(p, "ex-sandbox", workRoot);
    }

    private static Punctual sandboxed(int concurrency, SandboxConfig sandbox) {
        return Fixture.stack(
                TestStack.isolatedSettings()
                        .executorConcurrency(concurrency)
                        .sandbox(sandbox)
                        .build(),
                Clock.systemUTC());
    }

    /** A job that runs binary {@code binaryId} once, now, for 20 s at the most. */
    private static JobRequest.Builder oneAttempt(String name, String binaryId) {
        return JobRequest.builder(name, binaryId, NOW).timeoutSeconds(20).maxAttempts(1);
    }

    /** Runs {@code script} as a job and returns its log once the run has ended. */
    private String run(String script, Map<String, String> env) {
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script(script));
        JobView job = p.jobService.create(
                OWNER, oneAttempt("hostile", binaryId).env(env).build());
        Run run = await().atMost(Duration.ofSeconds(40))
                .until(
                        () -> Fixture.runsOf(p, job.id()).get(0),
                        r -> r.state() == RunState.SUCCEEDED || r.state() == RunState.DEAD);
        return p.jobService.log(OWNER, job.id(), run.runId());
    }

    @Test
    void aRunIsItsOwnUnprivilegedUserInAPrivateDirectory() {
        String log = run(
                "echo \"uid=$(id -u) gid=$(id -g) groups=$(id -G)\"\n"
                        + "grep NoNewPrivs /proc/self/status\nstat -c 'dir=%a owner=%u' .\n",
                Map.of());
        assertThat(log)
                .containsPattern("uid=21\\d{4} gid=21\\d{4} groups=21\\d{4}\\n")
                .contains("NoNewPrivs:\t1")
                .containsPattern("dir=700 owner=21\\d{4}");
        String uid = log.replaceAll("(?s).*uid=(\\d+).*", "$1");
        assertThat(log).contains("gid=" + uid).contains("owner=" + uid);
    }

    @Test
    void itCannotReadTheExecutorsEnvironmentOrMemoryNorWriteTheCacheOrTheLogs() {
        String log = run(
                "cat /proc/$PPID/environ >/dev/null 2>&1 && echo ENV-LEAKED || echo env-denied\n"
                        + "head -c1 /proc/$PPID/mem >/dev/null 2>&1 && echo MEM-LEAKED || echo mem-denied\n"
                        + "ls \"$WORK\" >/dev/null 2>&1 && echo CACHE-LISTED || echo cache-denied\n"
                        + "kill -0 $PPID 2>/dev/null && echo SIGNALLED || echo signal-denied\n",
                Map.of("WORK", workRoot.toString()));
        assertThat(log)
                .contains("env-denied", "mem-denied", "cache-denied", "signal-denied")
                .doesNotContain("LEAKED", "LISTED", "SIGNALLED");
    }

    @Test
    void whatARunLeavesInTheSharedTempDirectoriesIsRemovedAtItsEnd() {
        String name = "left-" + java.util.UUID.randomUUID();
        List<Path> left = List.of(Path.of("/tmp", name), Path.of("/var/tmp", name), Path.of("/dev/shm", name));
        String log = run(
                "for d in /tmp /var/tmp /dev/shm; do mkdir \"$d/$N\" && echo x > \"$d/$N/f\" && echo \"made $d\"; done\n",
                Map.of("N", name));
        assertThat(log).contains("made /tmp", "made /var/tmp", "made /dev/shm");
        // Removed as the sandbox closes the run's lease, right after its outcome is written.
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () -> assertThat(left).allSatisfy(f -> assertThat(f).doesNotExist()));
    }

    @Test
    void aDaemonThatLeftItsSessionAndCleanedItsEnvironmentDiesWithTheRun() throws Exception {
        Path pidFile = tmp.resolve("daemon.pid");
        Files.createDirectories(pidFile.getParent());
        // The run's own directory is private: the daemon reports its uid through the log instead.
        String log = run(
                "setsid env -i /bin/sh -c 'sleep 300' </dev/null >/dev/null 2>&1 &\n"
                        + "sleep 0.5\necho \"uid=$(id -u)\"\n",
                Map.of());
        int uid = Integer.parseInt(log.replaceAll("(?s).*uid=(\\d+).*", "$1").trim());
        assertThat(uid).isBetween(BASE, BASE + 49);
        await().atMost(Duration.ofSeconds(10)).until(() -> Sandbox.pidsOf(uid).isEmpty());
    }

    @Test
    void runsOfOneBinaryShareOneReadOnlyCopyAndEachGetsAnEmptyDirectory() throws Exception {
        String script = "echo \"bin=$0\"\nstat -c 'mode=%a owner=%u' \"$0\"\nls -A\ntouch left-by-me\n";
        String first = run(script, Map.of());
        String second = run(script, Map.of());
        assertThat(first).contains("mode=555 owner=0").doesNotContain("left-by-me");
        assertThat(second).contains("mode=555 owner=0").doesNotContain("left-by-me");
        assertThat(second.lines().filter(l -> l.startsWith("bin=")).toList())
                .as("the same executable copy")
                .isEqualTo(first.lines().filter(l -> l.startsWith("bin=")).toList())
                .hasSize(1);
        try (var copies = Files.newDirectoryStream(tmp.resolve("sandbox"), "exec-*")) {
            assertThat(copies).hasSize(1);
        }
    }

    @Test
    void runsAtTheSameTimeHaveDifferentUsers() {
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("sleep 2\necho \"uid=$(id -u)\"\n"));
        JobView a = p.jobService.create(OWNER, oneAttempt("a", binaryId).build());
        JobView b = p.jobService.create(OWNER, oneAttempt("b", binaryId).build());
        Run ra = await().atMost(Duration.ofSeconds(40))
                .until(() -> Fixture.runsOf(p, a.id()).get(0), r -> r.state() == RunState.SUCCEEDED);
        Run rb = await().atMost(Duration.ofSeconds(40))
                .until(() -> Fixture.runsOf(p, b.id()).get(0), r -> r.state() == RunState.SUCCEEDED);
        // They overlapped (2 slots, 2 s each), so neither uid was free while the other ran.
        assertThat(ra.startedAt()).isBefore(rb.finishedAt());
        assertThat(rb.startedAt()).isBefore(ra.finishedAt());
        assertThat(p.jobService.log(OWNER, a.id(), ra.runId()))
                .isNotEqualTo(p.jobService.log(OWNER, b.id(), rb.runId()));
    }

    @Test
    void aRunCannotReadSignalOrWriteIntoAConcurrentRun() {
        Path shared = Fixture.shared(tmp);
        String victimBin = Fixture.uploadBinary(
                p,
                OWNER,
                Fixture.script(
                        "echo $$ > \"$SHARED/victim.pid\"\necho \"victim output\"\nsleep 4\necho \"victim done\"\n"));
        JobView victim = p.jobService.create(
                OWNER,
                oneAttempt("victim", victimBin)
                        .args(List.of("s3cr3t-arg"))
                        .env(Map.of("SHARED", shared.toString(), "VICTIM_SECRET", "hunter2"))
                        .build());
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(shared.resolve("victim.pid")));
        String log = run(
                "v=$(cat \"$SHARED/victim.pid\")\n"
                        + "tr '\\0' ' ' < /proc/$v/environ 2>/dev/null | grep -q hunter2 && echo ENV-READ || echo env-denied\n"
                        + "ls /proc/$v/cwd/ >/dev/null 2>&1 && echo DIR-LISTED || echo dir-denied\n"
                        + "touch /proc/$v/cwd/planted 2>/dev/null && echo PLANTED || echo plant-denied\n"
                        + "ls /proc/$v/fd/ >/dev/null 2>&1 && echo FD-LISTED || echo fd-denied\n"
                        + "kill -9 $v 2>/dev/null && echo KILLED || echo kill-denied\n",
                Map.of("SHARED", shared.toString()));
        assertThat(log)
                .contains("env-denied", "dir-denied", "plant-denied", "fd-denied", "kill-denied")
                .doesNotContain("ENV-READ", "DIR-LISTED", "PLANTED", "FD-LISTED", "KILLED");
        Run v = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> Fixture.runsOf(p, victim.id()).get(0),
                        r -> r.state().terminal());
        assertThat(v.state()).isEqualTo(RunState.SUCCEEDED);
        assertThat(p.jobService.log(OWNER, victim.id(), v.runId())).isEqualTo("victim output\nvictim done\n");
    }

    @Test
    void withNoNetworkARunCannotReachTheEmulators() {
        // The control first: with the executor's network, the emulator answers a run.
        String dynamo = TestStack.aws().dynamodbEndpoint().toString();
        String script = "curl -s -m 5 -o /dev/null \"$TARGET\" && echo REACHED || echo unreachable\n";
        assertThat(run(script, Map.of("TARGET", dynamo))).contains("REACHED");

        executors.stop(pool);
        p = sandboxed(
                1, new SandboxConfig(true, BASE + 100, 10, tmp.resolve("sandbox-none"), SandboxConfig.Network.NONE));
        executors.start(p, "ex-no-network", tmp.resolve("ex-none"));
        assertThat(run(script, Map.of("TARGET", dynamo)))
                .contains("unreachable")
                .doesNotContain("REACHED");
    }

    @Test
    void whatADeadExecutorsRunLeftBehindIsKilledWhenItsUidIsNextTaken() throws Exception {
        int uid = BASE + 200;
        // A leftover as a kill -9'd executor leaves it: a process of a pool uid whose lock nobody holds.
        Process orphan = new ProcessBuilder(
                        "setsid", "setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "sleep", "300")
                .start();
        await().atMost(Duration.ofSeconds(5)).until(() -> !Sandbox.pidsOf(uid).isEmpty());

        executors.stop(pool);
        p = sandboxed(1, new SandboxConfig(true, uid, 1, tmp.resolve("sandbox"), SandboxConfig.Network.SHARED));
        executors.start(p, "ex-after-crash", tmp.resolve("ex-after"));
        String log = run("echo \"uid=$(id -u)\"\n", Map.of());
        assertThat(log).isEqualTo("uid=" + uid + "\n");
        assertThat(orphan.waitFor(10, java.util.concurrent.TimeUnit.SECONDS))
                .as("the leftover was killed")
                .isTrue();
    }
}
