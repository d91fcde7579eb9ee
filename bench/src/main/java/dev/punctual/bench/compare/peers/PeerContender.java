package dev.punctual.bench.compare.peers;

import dev.punctual.bench.compare.Contender;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * What both peers share: a private PostgreSQL cluster, the peer's schema, {@code nodes} {@link PeerNode} JVMs of
 * {@code slotsPerNode} threads each, and a client in this JVM that schedules the runs.
 */
abstract class PeerContender implements Contender {
    private final PeerNode.Peer peer;
    final Duration poll;
    volatile Setup setup;
    volatile Postgres postgres;
    private NodeProcesses nodes;
    private Thread hook;
    private volatile boolean closed;

    PeerContender(PeerNode.Peer peer, Duration poll) {
        this.peer = peer;
        this.poll = poll;
    }

    /** Creates the peer's tables in the empty database. */
    abstract void createSchema(String jdbc, String user) throws Exception;

    /** How many connections the client opens (for max_connections). */
    abstract int clientConnections();

    /** Opens the client that {@link #schedule} uses; the nodes are ready by then. */
    abstract void openClient(String jdbc, String user) throws Exception;

    abstract void closeClient() throws Exception;

    /**
     * Not synchronized, so the shutdown hook's {@link #close} can run while a node is starting: each part is handed
     * over under the lock, and a part that comes up after close is closed at once.
     */
    @Override
    public final void start(Setup setup) throws Exception {
        synchronized (this) {
            if (this.setup != null || closed) {
                throw new IllegalStateException(name() + " was started already");
            }
            this.setup = setup;
            // An interrupted bench (Ctrl-C) must not leave a cluster and its nodes running.
            hook = new Thread(this::closeQuietly, "close " + peer.option());
            Runtime.getRuntime().addShutdownHook(hook);
        }
        try {
            Files.createDirectories(setup.workDir());
            int connections = setup.nodes() * (setup.slotsPerNode() + 3) + clientConnections();
            Postgres pg = Postgres.start(setup.workDir(), connections);
            synchronized (this) {
                postgres = pg;
                throwIfClosed();
            }
            createSchema(pg.jdbcUrl(), pg.user());
            NodeProcesses started = NodeProcesses.start(
                    peer, pg.jdbcUrl(), pg.user(), setup.nodes(), setup.slotsPerNode(), poll, setup.workDir());
            synchronized (this) {
                nodes = started;
                throwIfClosed();
                openClient(pg.jdbcUrl(), pg.user());
            }
        } catch (Exception e) {
            try {
                close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void throwIfClosed() throws Exception {
        if (closed) {
            // close() ran before this part was handed over: it stopped what it knew of, this stops the rest.
            if (nodes != null) {
                nodes.close();
            }
            postgres.close();
            throw new IllegalStateException(name() + " was closed while it started");
        }
    }

    /** ", 2 nodes × 4" once started (the setup decides), empty before. */
    String shape() {
        return setup == null ? "" : ", " + setup.nodes() + " nodes × " + setup.slotsPerNode();
    }

    /** The shortest exact form, for a row's name: {@code 1 s}, {@code 1500 ms}. */
    static String text(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** "PostgreSQL 15": the running cluster's, or the newest installed before start. */
    String postgresName() {
        if (postgres != null) {
            return "PostgreSQL " + postgres.major();
        }
        try {
            return Postgres.Server.installed()
                    .map(s -> "PostgreSQL " + s.major())
                    .orElse("PostgreSQL");
        } catch (IOException e) {
            return "PostgreSQL";
        }
    }

    /** A dependency's version from its jar's Maven metadata. */
    static String version(String group, String artifact) {
        String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = PeerContender.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return "?";
            }
            Properties p = new Properties();
            p.load(in);
            return Optional.ofNullable(p.getProperty("version")).orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    void requireStarted() {
        if (setup == null || closed) {
            throw new IllegalStateException(name() + " is not running");
        }
    }

    /** The node JVMs, then the postmaster and its backends. */
    @Override
    public synchronized List<ProcessHandle> processes() {
        List<ProcessHandle> out = new ArrayList<>();
        if (nodes != null) {
            out.addAll(nodes.handles());
        }
        if (postgres != null) {
            out.addAll(postgres.processes());
        }
        return out;
    }

    @Override
    public final synchronized void close() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        Exception failure = null;
        try {
            closeClient();
        } catch (Exception e) {
            failure = e;
        }
        try {
            if (nodes != null) {
                nodes.close();
            }
        } catch (Exception e) {
            failure = chain(failure, e);
        }
        try {
            if (postgres != null) {
                postgres.close();
            }
        } catch (Exception e) {
            failure = chain(failure, e);
        }
        if (hook != null && Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or about to: it finds everything closed.
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (Exception e) {
            System.err.println("peers: closing " + peer.option() + " at exit: " + e);
        }
    }

    private static Exception chain(Exception first, Exception next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
