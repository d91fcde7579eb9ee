package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.limits.RunLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** What a binary is started with: its arguments, environment and working directory, and how its exit is seen. */
class ProcessRunnerIsolationTest extends ScriptTestBase {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    /** Variables /bin/sh itself may export (dash exports PWD); none comes from the executor. */
    private static final Set<String> SHELL_ADDED = Set.of("PWD", "OLDPWD", "SHLVL", "_");

    @Test
    void exitCodeIsPropagated() throws Exception {
        ProcessRunner.Result r = scripts.start(scripts.write("exit7", "exit 7")).await(TIMEOUT);
        assertThat(r.exitCode()).isEqualTo(7);
        assertThat(r.killedBecause()).isNull();
    }

    @Test
    void successIsExitCodeZero() throws Exception {
        ProcessRunner.Result r = scripts.start(scripts.write("ok", "echo fine")).await(TIMEOUT);
        assertThat(r.exitCode()).isZero();
        assertThat(r.killedBecause()).isNull();
        assertThat(scripts.log()).isEqualTo("fine\n");
    }

    @Test
    void argumentsArePassedVerbatimWithoutAShell() throws Exception {
        Path script = scripts.write("args", "for a in \"$@\"; do printf '[%s]\\n' \"$a\"; done");
        List<String> args = List.of("$HOME; echo pwned", "a b", "*", "`id`", "$(id)", "", "'quoted'", "\"dq\"");
        ProcessRunner.Result r = scripts.start(1024, script, args, Map.of()).await(TIMEOUT);

        assertThat(r.exitCode()).isZero();
        assertThat(scripts.logLines())
                .containsExactlyElementsOf(args.stream().map(a -> "[" + a + "]").toList());
    }

    @Test
    void environmentHoldsOnlyTheSafeBasicsAndWhatWasPassed() throws Exception {
        Path script = scripts.write("env", "env");
        ProcessRunner.Result r = scripts.start(
                        64 * 1024, script, List.of(), Map.of("GREETING", "hello world", "EMPTY", ""))
                .await(TIMEOUT);
        assertThat(r.exitCode()).isZero();

        Map<String, String> env = scripts.logLines().stream()
                .filter(l -> l.contains("="))
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1)));
        assertThat(env)
                .containsEntry("PATH", ProcessRunner.SAFE_PATH)
                .containsEntry("HOME", scripts.workDir.toString())
                .containsEntry("TMPDIR", scripts.workDir.toString())
                .containsEntry("GREETING", "hello world")
                .containsEntry("EMPTY", "");
        // The run's tag, by which processes that leave its group are found and killed when it ends.
        assertThat(env.get(ProcessRunner.TAG)).matches("[0-9a-f]{24}");
        Set<String> unexpected = env.keySet().stream()
                .filter(k -> !Set.of("PATH", "HOME", "TMPDIR", "GREETING", "EMPTY", ProcessRunner.TAG)
                        .contains(k))
                .filter(k -> !SHELL_ADDED.contains(k))
                .collect(Collectors.toSet());
        assertThat(unexpected).as("leaked from the executor's environment").isEmpty();
        // The test JVM certainly has some of these; none may leak.
        assertThat(env)
                .doesNotContainKeys(
                        "JAVA_HOME",
                        "USER",
                        "LOGNAME",
                        "MAVEN_OPTS",
                        "AWS_ACCESS_KEY_ID",
                        "AWS_SECRET_ACCESS_KEY",
                        "AWS_SESSION_TOKEN");
        for (String leaky : System.getenv().keySet()) {
            if (!Set.of("PATH", "HOME", "TMPDIR").contains(leaky) && !SHELL_ADDED.contains(leaky)) {
                assertThat(env).as("JVM variable %s", leaky).doesNotContainKey(leaky);
            }
        }
    }

    @Test
    void runsInTheGivenWorkingDirectory() throws Exception {
        Path script = scripts.write("pwd", "pwd -P; echo made > here.txt");
        ProcessRunner.Result r = scripts.start(script).await(TIMEOUT);
        assertThat(r.exitCode()).isZero();
        assertThat(scripts.logLines()).containsExactly(scripts.workDir.toString());
        assertThat(scripts.workDir.resolve("here.txt")).hasContent("made");
    }

    @Test
    void aPathFromTheJobCannotReplaceAStepOfTheChain() throws Exception {
        // Each step execs the next with the run's environment, which may set PATH. In the sandbox the steps up to
        // setpriv run as root: one found on the job's PATH would run the job's own code as root.
        Path planted = Files.createDirectories(temp.resolve("planted"));
        for (String step : List.of("setsid", "unshare", "prlimit", "setpriv")) {
            Path fake = planted.resolve(step);
            Files.writeString(fake, "#!/bin/sh\necho \"HIJACKED by " + step + "\"\n");
            Files.setPosixFilePermissions(fake, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Path script = scripts.write("real", "echo \"real, PATH=$PATH\"");
        ProcessRunner.Result r = scripts.runner(1024)
                .start(
                        script,
                        List.of(),
                        Map.of("PATH", planted.toString()),
                        scripts.workDir,
                        scripts.log,
                        new ProcessRunner.Confinement(null, RunLimits.DEFAULT_MAXIMA, false))
                .await(TIMEOUT);
        assertThat(scripts.log()).isEqualTo("real, PATH=" + planted + "\n");
        assertThat(r.exitCode()).isZero();
    }
}
