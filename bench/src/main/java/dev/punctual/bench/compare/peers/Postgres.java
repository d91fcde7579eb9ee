package dev.punctual.bench.compare.peers;

import dev.punctual.bench.Machine;
import dev.punctual.bench.Trees;
import dev.punctual.bench.compare.Pin;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A private PostgreSQL cluster for one contender: its own data directory under the contender's work dir, its own
 * loopback port, deleted on close. The server keeps PostgreSQL's defaults (fsync, synchronous_commit, shared_buffers,
 * WAL) but for the few lines {@link #start} writes, so a peer pays what it would pay in production.
 */
public final class Postgres implements AutoCloseable {
    /** The superuser initdb creates; trust authentication, over loopback only. */
    public static final String USER = "postgres";

    public static final String DATABASE = "bench";
    private static final Path VERSIONS = Path.of("/usr/lib/postgresql");
    private static final int DEFAULT_MAX_CONNECTIONS = 100;
    private static final int START_ATTEMPTS = 3;

    private final Server server;
    private final boolean root;
    private final Path dir;
    private final Path data;
    private final Path commandLog;
    private int port;
    private long pid;
    private boolean closed;

    /** Where the server binaries are, and their major version. */
    public record Server(Path bin, int major) {
        /** The newest {@code /usr/lib/postgresql/<major>/bin} with initdb and pg_ctl, if any. */
        public static Optional<Server> installed() throws IOException {
            if (!Files.isDirectory(VERSIONS)) {
                return Optional.empty();
            }
            try (Stream<Path> dirs = Files.list(VERSIONS)) {
                return dirs.filter(d -> d.getFileName().toString().matches("\\d+"))
                        .filter(d -> Files.isExecutable(d.resolve("bin/initdb"))
                                && Files.isExecutable(d.resolve("bin/pg_ctl")))
                        .map(d -> new Server(
                                d.resolve("bin"),
                                Integer.parseInt(d.getFileName().toString())))
                        .max(Comparator.comparingInt(Server::major));
            }
        }

        /** {@link #installed}, or, as root, what {@code apt-get install postgresql} installs. */
        static Server findOrInstall(boolean root) throws IOException, InterruptedException {
            Optional<Server> found = installed();
            if (found.isPresent()) {
                return found.get();
            }
            if (!root) {
                throw new IOException("no PostgreSQL server under " + VERSIONS + "/*/bin (initdb, pg_ctl): install it "
                        + "(Debian: apt-get install postgresql), or run as root to have it installed");
            }
            System.err.println("peers: no PostgreSQL server under " + VERSIONS
                    + "; installing Debian's: apt-get update && apt-get install -y postgresql (its package may also "
                    + "create and start a 'main' cluster on port 5432, which the bench does not use)");
            apt("update");
            apt("install", "-y", "postgresql");
            return installed()
                    .orElseThrow(() -> new IOException("apt-get install postgresql left no server under " + VERSIONS));
        }

        private static void apt(String... args) throws IOException, InterruptedException {
            List<String> cmd = new ArrayList<>(List.of("apt-get"));
            cmd.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
            Process p = pb.start();
            // stdout is the bench's report: apt's chatter goes to stderr with the rest of the progress.
            try (InputStream in = p.getInputStream()) {
                in.transferTo(System.err);
            }
            if (p.waitFor() != 0) {
                throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue());
            }
        }
    }

    private Postgres(Server server, boolean root, Path workDir) {
        this.server = server;
        this.root = root;
        this.dir = workDir.resolve("postgres");
        this.data = dir.resolve("data");
        this.commandLog = workDir.resolve("postgres-commands.log");
    }

    /**
     * Creates the cluster under {@code workDir/postgres}, starts it on a free loopback port and creates the
     * {@link #DATABASE} database. {@code connections} is how many the contender's pools may open at once.
     */
    public static Postgres start(Path workDir, int connections) throws IOException, InterruptedException {
        boolean root = Machine.effectiveUid() == 0;
        Postgres pg = new Postgres(Server.findOrInstall(root), root, workDir);
        try {
            pg.init(connections);
            pg.startServer();
            pg.createDatabase();
            return pg;
        } catch (IOException | InterruptedException | RuntimeException e) {
            pg.close();
            throw e;
        }
    }

    private void init(int connections) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        if (root) {
            // PostgreSQL refuses to run as root: the cluster belongs to the postgres user, who must reach it.
            UserPrincipal owner =
                    dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
            Files.setOwner(dir, owner);
            letOthersTraverse(dir.getParent());
        }
        // The locale and encoding are pinned so the cluster does not depend on the caller's environment. initdb
        // syncs its files (the default): a cluster left dirty would be written back during the measurements.
        run(List.of(
                server.bin().resolve("initdb").toString(),
                "-D",
                data.toString(),
                "-U",
                USER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C"));
        int maxConnections = Math.max(DEFAULT_MAX_CONNECTIONS, connections + 10);
        Files.writeString(
                data.resolve("postgresql.conf"), """

                # Punctual bench: a private cluster, reachable over loopback and by its own socket only (the port is
                # given to pg_ctl). max_connections is raised only when the contender's pools need more than the
                # default 100. Everything else is PostgreSQL's default.
                listen_addresses = '127.0.0.1'
                unix_socket_directories = '%s'
                max_connections = %d
                """.formatted(data, maxConnections), StandardOpenOption.APPEND);
    }

    /** The work dir is the contender's own: it gets search (not read) permission for the postgres user. */
    private static void letOthersTraverse(Path workDir) throws IOException {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(workDir);
        if (perms.add(PosixFilePermission.OTHERS_EXECUTE)) {
            Files.setPosixFilePermissions(workDir, perms);
        }
        for (Path p = workDir.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
            if (!Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS)
                    .contains(PosixFilePermission.OTHERS_EXECUTE)) {
                throw new IOException("the postgres user cannot reach " + workDir + ": " + p
                        + " is not searchable by others (chmod o+x it, or use a work dir under /tmp)");
            }
        }
    }

    /** pg_ctl start on a free port; a port taken between the probe and the bind gets another try. */
    private void startServer() throws IOException, InterruptedException {
        Path log = dir.resolve("server.log");
        for (int attempt = 1; ; attempt++) {
            port = freePort();
            try {
                run(Pin.STORE.wrap(List.of(
                        server.bin().resolve("pg_ctl").toString(),
                        "-D",
                        data.toString(),
                        "-l",
                        log.toString(),
                        "-w",
                        "-t",
                        "60",
                        "-o",
                        "-p " + port,
                        "start")));
                break;
            } catch (IOException e) {
                String serverLog = Files.exists(log) ? Files.readString(log) : "";
                if (attempt < START_ATTEMPTS && serverLog.contains("could not bind")) {
                    continue;
                }
                throw new IOException(e.getMessage() + "\nserver log " + log + ":\n" + tail(serverLog), e);
            }
        }
        pid = Long.parseLong(
                Files.readAllLines(data.resolve("postmaster.pid")).get(0).strip());
    }

    private void createDatabase() throws IOException {
        try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, "");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + DATABASE);
        } catch (SQLException e) {
            throw new IOException("CREATE DATABASE " + DATABASE + " on port " + port + ": " + e.getMessage(), e);
        }
    }

    public String jdbcUrl() {
        return jdbcUrl(DATABASE);
    }

    private String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    public String user() {
        return USER;
    }

    public int major() {
        return server.major();
    }

    /** The postmaster's pid, from {@code postmaster.pid}. */
    public long postmasterPid() {
        return pid;
    }

    /** The postmaster and every process it forked (backends, checkpointer, WAL writer...). */
    public List<ProcessHandle> processes() {
        List<ProcessHandle> out = new ArrayList<>();
        ProcessHandle.of(pid).ifPresent(p -> {
            out.add(p);
            p.descendants().forEach(out::add);
        });
        return out;
    }

    /** Stops the server (fast: rolls back open transactions) and deletes the cluster; safe to call twice. */
    @Override
    public synchronized void close() throws IOException, InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (pid > 0) {
                try {
                    run(List.of(
                            server.bin().resolve("pg_ctl").toString(),
                            "-D",
                            data.toString(),
                            "-m",
                            "fast",
                            "-w",
                            "-t",
                            "60",
                            "stop"));
                } finally {
                    Optional<ProcessHandle> left = ProcessHandle.of(pid);
                    if (left.isPresent() && left.get().isAlive()) {
                        left.get().destroyForcibly();
                        left.get().onExit().get(10, TimeUnit.SECONDS);
                    }
                }
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("postmaster " + pid + " outlived SIGKILL", e);
        } finally {
            Trees.delete(dir);
        }
    }

    /** Runs a server command as the cluster's owner; its output goes to the command log, quoted on failure. */
    private void run(List<String> cmd) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (root) {
            full.addAll(List.of("runuser", "-u", USER, "--"));
        }
        full.addAll(cmd);
        long before = Files.exists(commandLog) ? Files.size(commandLog) : 0;
        Files.writeString(
                commandLog, "$ " + String.join(" ", full) + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Process p = new ProcessBuilder(full)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(commandLog.toFile()))
                .start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", full) + " took over 120 s (output in " + commandLog + ")");
        }
        if (p.exitValue() != 0) {
            String all = Files.readString(commandLog);
            throw new IOException(String.join(" ", full) + " exited " + p.exitValue() + ":\n"
                    + tail(all.substring((int) Math.min(before, all.length()))));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String tail(String text) {
        List<String> lines = text.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }

    @Override
    public String toString() {
        return "PostgreSQL " + server.major() + " on 127.0.0.1:" + port + " (" + data + ")";
    }
}
