package dev.punctual.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The executor's JVM options live in one file, {@code executor/jvm.options} (a java launcher @argfile), which every
 * way of starting the executor passes: the image, {@code bin/run-executor} and the benchmark. The file must be one
 * the launcher takes, and must give what it is there for: the C1 compiler only.
 */
class JvmOptionsTest {
    private static final Path OPTIONS = Path.of("jvm.options").toAbsolutePath();

    @Test
    void theLauncherTakesTheFileAndRunsWithC1Only() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "@" + OPTIONS, "-XX:+PrintFlagsFinal", "-version")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out.lines().filter(l -> l.contains(" TieredStopAtLevel ")))
                .singleElement()
                .satisfies(l -> assertThat(l.split("=")[1].trim()).startsWith("1 "));
    }

    @Test
    void everyWayOfStartingTheExecutorPassesIt() throws Exception {
        assertThat(Files.readString(Path.of("..", "bin", "run-executor"))).contains("java @executor/jvm.options -jar");
        String docker = Files.readString(Path.of("src", "main", "docker", "Dockerfile.jvm"));
        assertThat(docker).contains("COPY --chmod=0444 jvm.options /deployments/jvm.options");
        assertThat(docker.lines()
                        .filter(l -> l.startsWith("ENV JAVA_OPTS_APPEND="))
                        .toList())
                .singleElement()
                .satisfies(l -> assertThat(l).contains("@/deployments/jvm.options"));
        assertThat(Files.readString(Path.of(
                        "..", "bench/src/main/java/dev/punctual/bench/compare/punctual/PunctualContender.java")))
                .contains("\"executor/jvm.options\"");
        assertThat(List.of(Files.readString(OPTIONS).split("\n"))).contains("-XX:TieredStopAtLevel=1");
    }
}
