package dev.punctual.faults;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

/**
 * The classpath for executor processes: this JVM's (surefire's manifest-only booter jar expanded), with the
 * project's own SNAPSHOT jars from the local repository copied once into {@code target/}. Other modules are rebuilt
 * and re-installed while the suite runs; a child JVM must not read a jar that is being rewritten.
 */
final class ChildClasspath {
    private static String cached;

    private ChildClasspath() {}

    static synchronized String get(Path dir) {
        if (cached == null) {
            try {
                cached = build(dir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return cached;
    }

    private static String build(Path dir) throws IOException {
        List<String> entries = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            entries.addAll(expand(e));
        }
        Files.createDirectories(dir);
        List<String> out = new ArrayList<>();
        for (String e : entries) {
            Path p = Path.of(e);
            if (e.endsWith(".jar")
                    && e.contains(File.separator + "dev" + File.separator + "punctual" + File.separator)
                    && e.contains(".m2")) {
                Path copy = dir.resolve(p.getFileName());
                copyValid(p, copy);
                out.add(copy.toString());
            } else {
                out.add(e);
            }
        }
        return String.join(File.pathSeparator, out);
    }

    private static List<String> expand(String entry) throws IOException {
        if (!entry.endsWith(".jar") || !Files.isRegularFile(Path.of(entry))) {
            return List.of(entry);
        }
        try (JarFile jar = new JarFile(entry)) {
            var mf = jar.getManifest();
            String cp = mf == null ? null : mf.getMainAttributes().getValue("Class-Path");
            if (cp == null || cp.isBlank()) {
                return List.of(entry);
            }
            List<String> out = new ArrayList<>();
            for (String u : cp.trim().split("\\s+")) {
                // Relative entries (surefire writes them so) resolve against the manifest jar's directory.
                URI base = Path.of(entry).toAbsolutePath().getParent().toUri();
                out.add(Path.of(base.resolve(URI.create(u))).toString());
            }
            return out;
        }
    }

    /** Copies a jar, again until the copy reads as a whole zip (it may be mid-rewrite by another build). */
    private static void copyValid(Path from, Path to) {
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(20))
                .pollInterval(java.time.Duration.ofSeconds(1))
                .ignoreExceptions()
                .until(() -> {
                    Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
                    try (JarFile j = new JarFile(to.toFile())) {
                        j.stream().forEach(x -> {});
                        return true;
                    }
                });
    }
}
