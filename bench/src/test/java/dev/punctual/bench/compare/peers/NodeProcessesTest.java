package dev.punctual.bench.compare.peers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeProcessesTest {
    @TempDir
    Path dir;

    @Test
    void aJarsManifestClassPathIsSpelledOutRelativeToIt() throws IOException {
        Files.createDirectories(dir.resolve("lib"));
        Path a = jar(dir.resolve("lib/a.jar"), null);
        Path b = jar(dir.resolve("lib/b.jar"), "a.jar");
        Path main = jar(dir.resolve("bench.jar"), "lib/a.jar lib/b.jar");

        Set<String> out = new LinkedHashSet<>();
        NodeProcesses.addWithManifestClassPath(main, out);

        assertThat(out).containsExactly(main.toString(), a.toString(), b.toString());
    }

    @Test
    void directoriesAndJarsWithoutClassPathAreKeptAsTheyAre() throws IOException {
        Path plain = jar(dir.resolve("plain.jar"), null);
        Set<String> out = new LinkedHashSet<>();
        NodeProcesses.addWithManifestClassPath(dir, out);
        NodeProcesses.addWithManifestClassPath(plain, out);
        assertThat(out).containsExactly(dir.toString(), plain.toString());
    }

    private static Path jar(Path path, String classPath) throws IOException {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (classPath != null) {
            m.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        }
        try (OutputStream out = Files.newOutputStream(path);
                JarOutputStream unused = new JarOutputStream(out, m)) {
            return path;
        }
    }
}
