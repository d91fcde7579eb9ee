package dev.punctual.bench.compare.peers;

import dev.punctual.bench.compare.Child;
import dev.punctual.bench.compare.Pin;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * A peer's nodes: one {@link PeerNode} JVM each, started together, each ready once it printed the line
 * {@code ready}. Their output goes to {@code <name>.log} in the work dir.
 */
final class NodeProcesses implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);

    private final List<Child> nodes = new ArrayList<>();
    private boolean closed;

    private NodeProcesses() {}

    /** Starts {@code count} nodes named {@code node-1...} and returns once every one is ready. */
    static NodeProcesses start(
            PeerNode.Peer peer, String jdbc, String user, int count, int threads, Duration poll, Path workDir)
            throws IOException, InterruptedException {
        NodeProcesses started = new NodeProcesses();
        try {
            String classpath = String.join(File.pathSeparator, classpath());
            for (int i = 1; i <= count; i++) {
                String name = "node-" + i;
                List<String> cmd = List.of(
                        Child.java(),
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
                        "--poll-ms",
                        Long.toString(poll.toMillis()),
                        "--name",
                        name);
                started.nodes.add(Child.start(name, Pin.WORKERS, cmd, Map.of(), workDir));
            }
            for (Child node : started.nodes) {
                node.awaitLine("ready"::equals, "line 'ready'", READY_TIMEOUT);
            }
            return started;
        } catch (IOException | InterruptedException | RuntimeException e) {
            started.close();
            throw e;
        }
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
        return nodes.stream().map(Child::handle).filter(ProcessHandle::isAlive).toList();
    }

    /** SIGTERM every node (their hooks stop the schedulers), then wait for each; safe to call twice. */
    @Override
    public synchronized void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        nodes.forEach(Child::terminate);
        for (Child node : nodes) {
            node.close();
        }
    }
}
