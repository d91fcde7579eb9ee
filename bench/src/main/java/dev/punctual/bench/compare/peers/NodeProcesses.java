package dev.punctual.bench.compare.peers;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * A peer's nodes: one {@link PeerNode} JVM each, started together, each ready once it printed {@code ready}. Their
 * stdout and stderr go to {@code <name>.out} and {@code <name>.err} in the work dir.
 */
final class NodeProcesses implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final List<Process> nodes = new ArrayList<>();
    private final Path workDir;
    private boolean closed;

    private NodeProcesses(Path workDir) {
        this.workDir = workDir;
    }

    /** Starts {@code count} nodes named {@code node-1...} and returns once every one is ready. */
    static NodeProcesses start(
            PeerNode.Peer peer, String jdbc, String user, int count, int threads, Duration poll, Path workDir)
            throws IOException, InterruptedException {
        NodeProcesses started = new NodeProcesses(workDir);
        try {
            String java = ProcessHandle.current()
                    .info()
                    .command()
                    .orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                            .toString());
            String classpath = String.join(File.pathSeparator, classpath());
            for (int i = 1; i <= count; i++) {
                String name = "node-" + i;
                List<String> cmd = List.of(
                        java,
                        "-cp",
                        classpath,
                        PeerNode.class.getName(),
                        "--system",
                        peer.option(),
                        "--jdbc",
                        jdbc,
                        "--user",
                        user,
                        "--threads",
                        Integer.toString(threads),
                        "--poll",
                        poll.toMillis() + "ms",
                        "--name",
                        name);
                started.nodes.add(new ProcessBuilder(cmd)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectOutput(started.out(name).toFile())
                        .redirectError(started.err(name).toFile())
                        .start());
            }
            for (int i = 0; i < count; i++) {
                started.awaitReady(started.nodes.get(i), "node-" + (i + 1));
            }
            return started;
        } catch (IOException | InterruptedException | RuntimeException e) {
            started.close();
            throw e;
        }
    }

    private Path out(String name) {
        return workDir.resolve(name + ".out");
    }

    private Path err(String name) {
        return workDir.resolve(name + ".err");
    }

    private void awaitReady(Process node, String name) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (true) {
            if (Files.readAllLines(out(name)).contains("ready")) {
                return;
            }
            if (!node.isAlive()) {
                throw new IOException(name + " exited " + node.exitValue() + " before it was ready; its stderr ("
                        + err(name) + "):\n" + tail(err(name)));
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(name + " not ready after " + READY_TIMEOUT.toSeconds() + " s; its stdout is "
                        + out(name) + ", its stderr (" + err(name) + "):\n" + tail(err(name)));
            }
            Thread.sleep(50);
        }
    }

    private static String tail(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    /**
     * The node JVM's classpath: this JVM's, with the jars a jar's manifest names (the bench runs as
     * {@code java -jar punctual-bench.jar}, whose Class-Path lists {@code lib/*.jar}) spelled out.
     */
    static List<String> classpath() throws IOException {
        Set<String> out = new LinkedHashSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator, -1)) {
            if (!entry.isEmpty()) {
                addWithManifestClassPath(Path.of(entry).toAbsolutePath(), out);
            }
        }
        return List.copyOf(out);
    }

    static void addWithManifestClassPath(Path entry, Set<String> out) throws IOException {
        if (!out.add(entry.toString()) || !entry.toString().endsWith(".jar") || !Files.isRegularFile(entry)) {
            return;
        }
        Manifest manifest;
        try (JarFile jar = new JarFile(entry.toFile())) {
            manifest = jar.getManifest();
        }
        String classPath =
                manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
        if (classPath == null) {
            return;
        }
        for (String relative : classPath.strip().split("\\s+", -1)) {
            try {
                // Class-Path entries are URLs relative to the jar.
                Path p = Path.of(entry.toUri().resolve(relative));
                addWithManifestClassPath(p, out);
            } catch (IllegalArgumentException e) {
                throw new IOException("bad Class-Path entry " + relative + " in " + entry, e);
            }
        }
    }

    List<ProcessHandle> handles() {
        return nodes.stream().filter(Process::isAlive).map(Process::toHandle).toList();
    }

    /** SIGTERM every node (their hooks stop the schedulers), wait, then SIGKILL what is left; safe to call twice. */
    @Override
    public synchronized void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        for (Process p : nodes) {
            p.destroy();
        }
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        for (Process p : nodes) {
            long left = Math.max(0, deadline - System.nanoTime());
            if (!p.waitFor(left, TimeUnit.NANOSECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
