package dev.punctual.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged executor logs one JSON object per line when QUARKUS_LOG_CONSOLE_JSON_ENABLED=true (as the Terraform
 * module runs it), and readable text otherwise. Started with no AWS region, it stops at once, logging why: enough
 * to see the format of what it logs.
 */
class ExecutorLogsIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private List<String> firstLines(boolean json) throws IOException, InterruptedException {
        String jar = System.getProperty("punctual.executor.app");
        assertThat(jar).as("punctual.executor.app (set by failsafe)").isNotNull();
        assertThat(Path.of(jar)).exists();
        ProcessBuilder pb = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Dpunctual.queue-url=http://127.0.0.1:9/queue",
                        "-Dpunctual.work-dir=" + Files.createDirectories(tmp.resolve("work")),
                        "-jar",
                        jar)
                .redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("QUARKUS_"));
        if (json) {
            pb.environment().put("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "true");
        }
        Process p = pb.start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null && lines.size() < 3; ) {
                lines.add(line);
            }
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(lines).as("what the executor logged").isNotEmpty();
        return lines;
    }

    @Test
    void withJsonOnEachLineIsOneJsonObjectWithItsLevelAndLogger() throws Exception {
        String first = firstLines(true).get(0);
        assertThatCode(() -> JSON.readTree(first)).doesNotThrowAnyException();
        JsonNode line = JSON.readTree(first);
        assertThat(line.path("level").asText()).isEqualTo("ERROR");
        assertThat(line.path("loggerName").asText()).isNotEmpty();
        assertThat(line.path("message").asText()).isNotEmpty();
        assertThat(line.path("timestamp").asText()).isNotEmpty();
    }

    @Test
    void byDefaultLinesAreReadableText() throws Exception {
        String first = firstLines(false).get(0);
        assertThat(first).doesNotStartWith("{").contains("ERROR");
    }
}
