package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** C programs for the tests (hostile binaries, probes), compiled here; a test without gcc is skipped, saying so. */
final class Gcc {
    private Gcc() {}

    /** {@code source} compiled into {@code dir/name}, which is returned. */
    static Path compile(Path dir, String name, String source) throws Exception {
        Path c = dir.resolve(name + ".c");
        Path out = dir.resolve(name);
        Files.writeString(c, source);
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-O1", "-o", out.toString(), c.toString())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            assumeTrue(false, "needs gcc to build " + name + ": " + e.getMessage());
            throw e;
        }
        String msg = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(gcc.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(gcc.exitValue()).as(msg).isZero();
        return out;
    }
}
