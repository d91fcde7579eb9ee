package dev.punctual.core.exec;

import dev.punctual.core.config.SandboxConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A user of its own for every run (opt-in, {@code punctual.sandbox}; needs the executor to be root, as changing
 * users does). A run gets a uid from a pool that no live process uses, a private directory (0700, its uid), and
 * a copy of its binary that root owns and nobody can change, verified as it is copied: the bytes executed are the
 * bytes checked. The binary starts through {@code setpriv} with that uid and gid, no supplementary groups and
 * {@code no_new_privs}, so it cannot read the executor's environment or memory, signal it or another run, or write
 * the cache. When the run ends every process of its uid is killed, whatever session or environment it made itself,
 * and only then is the uid given out again.
 */
public final class Sandbox {
    private static final System.Logger LOG = System.getLogger(Sandbox.class.getName());
    private static final Path PROC = Path.of("/proc");

    /**
     * Uids held by this JVM (every executor pool of a process shares them), each with an exclusive lock on a file
     * named after it, which other executor processes on the host respect; the OS drops the lock of a process that
     * dies, and the check for live processes of the uid then keeps its leftovers from being joined by a new run.
     */
    private static final Set<Integer> CLAIMED = ConcurrentHashMap.newKeySet();

    private static final Map<Integer, FileChannel> LOCKS = new ConcurrentHashMap<>();

    private final SandboxConfig config;
    private final boolean active;
    /** {@code config.dir()}, traversable by the runs' users; {@code locks} in it is root's alone. */
    private final Path root;

    private final Path locks;

    private Sandbox(SandboxConfig config, boolean active) {
        this.config = config;
        this.active = active;
        if (!active) {
            this.root = null;
            this.locks = null;
            return;
        }
        try {
            this.root = Files.createDirectories(config.dir());
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
            this.locks = Files.createDirectories(root.resolve("locks"));
            Files.setPosixFilePermissions(locks, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the sandbox directory " + config.dir(), e);
        }
    }

    public static Sandbox create(SandboxConfig config) {
        if (!config.enabled()) {
            return new Sandbox(config, false);
        }
        if (!isRoot()) {
            LOG.log(
                    Level.WARNING,
                    "punctual.sandbox is on but the executor is not root: binaries run as the "
                            + "executor's own user and are NOT isolated from it or from each other");
            return new Sandbox(config, false);
        }
        if (config.network() == SandboxConfig.Network.NONE) {
            String why = ProcessRunner.probePrivateNetwork();
            if (why != null) {
                throw new IllegalStateException("punctual.sandbox-network=none, but a run cannot get a network of "
                        + "its own here (" + why + "): give the executor CAP_SYS_ADMIN, or set it to shared");
            }
        }
        return new Sandbox(config, true);
    }

    /** Whether runs get a network namespace of their own. */
    public boolean privateNetwork() {
        return active && config.network() == SandboxConfig.Network.NONE;
    }

    public boolean active() {
        return active;
    }

    /** Whether this process runs as root (effective uid 0), read from /proc. */
    public static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(PROC.resolve("self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+", -1)[2].equals("0");
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }

    /** A run's sandbox: its uid, its private directory, and the executable copy of its binary. */
    public record Lease(int uid, Path dir, Path binary) {}

    /** A uid no live process uses, a private directory for it, and a root-owned copy of the verified binary. */
    public Lease open(Path cached, String sha256) throws IOException {
        int uid = take();
        try {
            Path dir = Files.createTempDirectory(root, "run-");
            Files.setAttribute(dir, "unix:uid", uid);
            Files.setAttribute(dir, "unix:gid", uid);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            Path execDir = Files.createDirectory(root.resolve("exec-" + dir.getFileName()));
            Files.setPosixFilePermissions(execDir, PosixFilePermissions.fromString("rwx--x--x"));
            Path binary = execDir.resolve("binary");
            copyVerified(cached, binary, sha256);
            Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("r-xr-xr-x"));
            return new Lease(uid, dir, binary);
        } catch (IOException | RuntimeException e) {
            release(uid);
            throw e;
        }
    }

    /** Kills every process of the lease's uid, removes its directories, and gives the uid back. */
    public void close(Lease lease) {
        boolean gone = killAll(lease.uid());
        deleteTree(lease.dir());
        deleteLeftovers(lease.uid());
        deleteTree(lease.binary().getParent());
        if (gone) {
            release(lease.uid());
        } else {
            // Something of it survived the kills (a zombie not yet reaped): the uid stays out of the pool.
            LOG.log(Level.WARNING, "uid " + lease.uid() + " still has processes; not reusing it");
        }
    }

    /**
     * Kills every process whose real, effective or saved uid is {@code uid}, until a scan finds none (true), or
     * gives up after 20 rounds (false: something of it is left).
     */
    public static boolean killAll(int uid) {
        for (int round = 0; round < 20; round++) {
            List<Long> pids = pidsOf(uid);
            if (pids.isEmpty()) {
                return true;
            }
            for (long pid : pids) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            for (long pid : pids) {
                ProcessHandle.of(pid)
                        .ifPresent(h -> h.onExit()
                                .completeOnTimeout(h, 200, TimeUnit.MILLISECONDS)
                                .join());
            }
        }
        return pidsOf(uid).isEmpty();
    }

    /** The live processes of {@code uid} (zombies excluded: they hold nothing and cannot be killed). */
    public static List<Long> pidsOf(int uid) {
        List<Long> out = new ArrayList<>();
        String u = Integer.toString(uid);
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(PROC, "[0-9]*")) {
            for (Path p : pids) {
                try {
                    boolean match = false;
                    boolean zombie = false;
                    for (String line : Files.readAllLines(p.resolve("status"))) {
                        if (line.startsWith("State:")) {
                            zombie = line.contains("Z");
                        } else if (line.startsWith("Uid:")) {
                            String[] f = line.split("\\s+", -1);
                            match = f[1].equals(u) || f[2].equals(u) || f[3].equals(u);
                        }
                    }
                    if (match && !zombie) {
                        out.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException gone) {
                    // Exited meanwhile.
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    /**
     * The bytes on disk that are the run's: everything in its directory, and what its user owns in the temp
     * directories every user may write ({@link #SHARED_TEMP}). Apparent sizes: a sparse file counts in full.
     */
    public long diskUsed(Lease lease) {
        long used = sizeOf(lease.dir());
        for (Path left : ownedInSharedTemp(lease.uid())) {
            used += Files.isDirectory(left, LinkOption.NOFOLLOW_LINKS) ? sizeOf(left) : sizeOrZero(left);
        }
        return used;
    }

    /** Directories any user may write to, where a run can leave files outside its own directory. */
    static final List<Path> SHARED_TEMP = Stream.of("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
            .map(Path::of)
            .filter(Files::isDirectory)
            .toList();

    /** Bytes of the files under {@code dir}, links not followed. */
    static long sizeOf(Path dir) {
        long total = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path e : entries) {
                total += Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS) ? sizeOf(e) : sizeOrZero(e);
            }
        } catch (IOException | RuntimeException gone) {
            return total;
        }
        return total;
    }

    private static long sizeOrZero(Path file) {
        try {
            return Files.size(file);
        } catch (IOException | RuntimeException gone) {
            return 0;
        }
    }

    /** The entries {@code uid} owns at the top of the shared temp directories. */
    private static List<Path> ownedInSharedTemp(int uid) {
        List<Path> out = new ArrayList<>();
        for (Path shared : SHARED_TEMP) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(shared)) {
                for (Path e : entries) {
                    try {
                        if ((int) Files.getAttribute(e, "unix:uid", LinkOption.NOFOLLOW_LINKS) == uid) {
                            out.add(e);
                        }
                    } catch (IOException | RuntimeException gone) {
                        // Removed meanwhile.
                    }
                }
            } catch (IOException | RuntimeException unreadable) {
                // Nothing of ours to find there.
            }
        }
        return out;
    }

    /** Removes what {@code uid} left in the shared temp directories (a later run may get the same uid). */
    private static void deleteLeftovers(int uid) {
        ownedInSharedTemp(uid).forEach(Sandbox::deleteTree);
    }

    private int take() throws IOException {
        for (int i = 0; i < config.uidCount(); i++) {
            int uid = config.uidBase() + i;
            // Claimed first, so two pools of this JVM never check the same uid at once (a second tryLock on a
            // file this JVM holds throws rather than answers).
            if (!CLAIMED.add(uid)) {
                continue;
            }
            FileChannel ch = FileChannel.open(
                    locks.resolve(Integer.toString(uid)), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = ch.tryLock();
            if (lock != null) {
                boolean free = pidsOf(uid).isEmpty();
                if (!free) {
                    // Nobody holds this uid's lock, yet processes of it live: an executor died (kill -9 on a
                    // plain host) and its run's own children outlived it. Every executor on this host shares these
                    // locks (the same sandbox-dir), so they are nobody's run now.
                    LOG.log(
                            Level.WARNING,
                            "uid " + uid + " has processes left by an executor that died: killing " + "them");
                    free = killAll(uid);
                    deleteLeftovers(uid);
                }
                if (free) {
                    LOCKS.put(uid, ch);
                    return uid;
                }
            }
            ch.close();
            CLAIMED.remove(uid);
        }
        throw new IOException(
                "no free sandbox uid: all " + config.uidCount() + " from " + config.uidBase() + " are in use");
    }

    private static void release(int uid) {
        FileChannel ch = LOCKS.remove(uid);
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // Closing drops the lock either way.
            }
        }
        CLAIMED.remove(uid);
    }

    private static void copyVerified(Path from, Path to, String sha256) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        // No process may start while the copy is open for writing (see ProcessRunner.EXEC_WRITES).
        ProcessRunner.EXEC_WRITES.writeLock().lock();
        try (InputStream in = new DigestInputStream(Files.newInputStream(from), digest);
                OutputStream out = Files.newOutputStream(to, StandardOpenOption.CREATE_NEW)) {
            in.transferTo(out);
        } finally {
            ProcessRunner.EXEC_WRITES.writeLock().unlock();
        }
        String actual = HexFormat.of().formatHex(digest.digest());
        if (!actual.equals(sha256)) {
            Files.deleteIfExists(to);
            throw new IOException("binary " + sha256 + " read from the cache as " + actual);
        }
    }

    /** Removes {@code dir} and everything under it, links not followed; best effort. */
    static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // Best effort: a leftover directory holds nothing that runs.
                }
            });
        } catch (IOException ignored) {
            // Same.
        }
    }
}
