package dev.punctual.core.exec;

import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.limits.RunLimits;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A user of its own for every run (opt-in, {@code punctual.sandbox}; needs the executor to be root, as changing
 * users does). A run gets a uid from a pool that no live process uses, a private directory (0700, its uid), and
 * runs a copy of its binary that root owns and nobody can change, verified as it was copied: the bytes executed are
 * the bytes checked. The copy is made once per binary and shared by its runs (at a random path in a directory no
 * run can list, so a run cannot find another tenant's binary to read). The binary starts through {@code setpriv}
 * with that uid and gid, no supplementary groups and {@code no_new_privs}, so it cannot read the executor's
 * environment or memory, signal it or another run, or write the cache. When the run ends every process of its uid
 * is killed, whatever session or environment it made itself, and only then is the uid given out again.
 *
 * <p>A uid this JVM has taken stays its own (its lock held) once its run ended with no process left: the next run
 * gets it without scanning {@code /proc} again, since no process of it can have started in between (only this
 * JVM starts processes as it). A scan of every process per run was the largest cost of the executor's own code.
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

    /** Uids this JVM holds (claimed, locked) that no process uses: handed out again without a scan. */
    private static final Deque<Integer> IDLE = new ConcurrentLinkedDeque<>();

    /**
     * Uids whose last scan, since they were last handed out, found no process ({@link #killAll}): their run's end
     * needs no second scan.
     */
    private static final Set<Integer> NONE_LEFT = ConcurrentHashMap.newKeySet();

    /** The executable copies of this sandbox's binaries, by owner and sha256 ({@link #executable}). */
    private final Map<String, Path> executables = new ConcurrentHashMap<>();

    private final Map<String, Object> copying = new ConcurrentHashMap<>();

    private final SandboxConfig config;
    private final boolean active;
    /** {@code config.dir()}, traversable by the runs' users; {@code locks} in it is root's alone. */
    private final Path root;

    private final Path locks;
    /** The runs' own filesystems; null where their disks are watched ({@link RunWatch}). */
    private final RunDisks disks;

    private Sandbox(SandboxConfig config, boolean active) {
        this.config = config;
        this.active = active;
        if (!active) {
            this.root = null;
            this.locks = null;
            this.disks = null;
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
        this.disks = RunDisks.choose(config, root);
    }

    public static Sandbox create(SandboxConfig config) {
        if (!config.enabled()) {
            return new Sandbox(config, false);
        }
        if (!isRoot()) {
            if (config.disk() == SandboxConfig.Disk.FILESYSTEM) {
                throw new IllegalStateException("punctual.sandbox-disk=filesystem, but the executor is not root: "
                        + "a run cannot get a filesystem of its own");
            }
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

    /** Whether every run gets a filesystem of its own of its {@code diskMb} ({@link RunDisks}). */
    public boolean ownFilesystems() {
        return disks != null;
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

    /**
     * A run's sandbox: its uid, its private directory, the executable copy of its binary, and the image of its own
     * filesystem (null: its disk is watched); {@code tempAtOpen}: the shared temp directories as the lease was opened,
     * so that its close looks for what the run left only in those that changed since (null where the run has a
     * filesystem of its own, temp included).
     */
    public record Lease(int uid, Path dir, Path binary, Path image, SharedTemp.Marks tempAtOpen) {}

    /** Where a verified binary comes from when it has no executable copy yet (the executor's cache). */
    @FunctionalInterface
    public interface Cached {
        Path fetch() throws IOException;
    }

    /**
     * The executable copy of the binary {@code sha256} of {@code owner}, made from {@code cached} on first use (root
     * owns it, nobody can change it, its bytes hashed as they were copied) and shared by every later run of it.
     */
    public Path executable(String owner, String sha256, Cached cached) throws IOException {
        String key = owner + "/" + sha256;
        Path made = executables.get(key);
        if (made != null && Files.isExecutable(made)) {
            return made;
        }
        synchronized (copying.computeIfAbsent(key, k -> new Object())) {
            made = executables.get(key);
            if (made != null && Files.isExecutable(made)) {
                return made;
            }
            // The directory's name is random and the sandbox's root cannot be listed by a run: the path is not
            // one a run of another tenant can guess to read these bytes.
            Path execDir = Files.createTempDirectory(root, "exec-");
            Files.setPosixFilePermissions(execDir, PosixFilePermissions.fromString("rwx--x--x"));
            Path binary = execDir.resolve("binary");
            try {
                copyVerified(cached.fetch(), binary, sha256);
                Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("r-xr-xr-x"));
            } catch (IOException | RuntimeException e) {
                deleteTree(execDir);
                throw e;
            }
            executables.put(key, binary);
            return binary;
        }
    }

    /**
     * A uid no live process uses and a private directory for it, to run {@code executable} (see above), with a
     * filesystem of {@code diskMb} of its own where the sandbox gives one: its image made here, before the run's
     * instant, and mounted at its directory as it starts ({@link #confinement}).
     */
    public Lease open(Path executable, int diskMb) throws IOException {
        int uid = take();
        Path dir = null;
        try {
            dir = Files.createTempDirectory(root, "run-");
            if (disks != null) {
                // The directory stays root's: only a mount point, under the run's own filesystem where the run is.
                return new Lease(uid, dir, executable, disks.make(uid, diskMb), null);
            }
            Files.setAttribute(dir, "unix:uid", uid);
            Files.setAttribute(dir, "unix:gid", uid);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            return new Lease(
                    uid,
                    dir,
                    executable,
                    null,
                    SharedTemp.Marks.now(
                            Instant.now() /* the clock that stamps the directories, not the executor's */));
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            release(uid);
            throw e;
        }
    }

    /** How the run of {@code lease} is held in: its uid, its {@code limits}, its network, and its own filesystem. */
    public ProcessRunner.Confinement confinement(Lease lease, RunLimits limits) {
        return new ProcessRunner.Confinement(
                lease.uid(), limits, privateNetwork(), lease.image() == null ? null : disks.disk(lease.image()));
    }

    /**
     * Kills every process of the lease's uid, removes its directory, its filesystem's image and its leftovers, and
     * gives the uid back. With its processes gone, so is its mount namespace: the kernel has unmounted its
     * filesystem, and frees the loop device a few milliseconds later, by itself; the image is deleted meanwhile.
     */
    public void close(Lease lease) {
        // The run's end (ProcessRunner) has scanned for its processes already, in the usual case.
        boolean gone = NONE_LEFT.contains(lease.uid()) || killAll(lease.uid());
        deleteTree(lease.dir());
        if (lease.image() != null) {
            deleteTree(lease.image());
        }
        deleteLeftovers(lease.uid(), lease.tempAtOpen());
        if (gone) {
            release(lease.uid());
        } else {
            // Something of it survived the kills (a zombie not yet reaped): the uid stays out of the pool.
            LOG.log(Level.WARNING, "uid " + lease.uid() + " still has processes; not reusing it");
        }
    }

    /** Removes the executable copies (the executor is stopping: no run of this sandbox is left). */
    public void removeExecutables() {
        executables.values().forEach(b -> deleteTree(b.getParent()));
        executables.clear();
    }

    /**
     * Kills every process whose real, effective or saved uid is {@code uid}, until a scan finds none (true), or
     * gives up after 20 rounds (false: something of it is left).
     */
    public static boolean killAll(int uid) {
        for (int round = 0; round < 20; round++) {
            List<Long> pids = pidsOf(uid);
            if (pids.isEmpty()) {
                NONE_LEFT.add(uid);
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
        boolean none = pidsOf(uid).isEmpty();
        if (none) {
            NONE_LEFT.add(uid);
        }
        return none;
    }

    /** No process of {@code uid} is left: the launcher killed them all and saw none left ({@link Launcher}). */
    static void noneLeft(int uid) {
        NONE_LEFT.add(uid);
    }

    /** The live processes of {@code uid} (zombies excluded: they hold nothing and cannot be killed). */
    public static List<Long> pidsOf(int uid) {
        List<Long> out = new ArrayList<>();
        byte[] buf = new byte[STATUS_HEAD];
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(PROC, "[0-9]*")) {
            for (Path p : pids) {
                if (isLiveProcessOf(p.resolve("status"), uid, buf)) {
                    out.add(Long.parseLong(p.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    /** How much of {@code /proc/<pid>/status} is read: its State and Uid lines come within the first few lines. */
    private static final int STATUS_HEAD = 1024;

    /**
     * Whether the process of {@code status} is alive (not a zombie) and has {@code uid} as its real, effective or
     * saved uid. Only the head of the file is read and parsed as bytes: this runs over every process of the host
     * after every run.
     */
    static boolean isLiveProcessOf(Path status, int uid, byte[] buf) {
        int n;
        try (InputStream in = Files.newInputStream(status)) {
            n = in.readNBytes(buf, 0, buf.length);
        } catch (IOException | RuntimeException gone) {
            // Exited meanwhile.
            return false;
        }
        String head = new String(buf, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
        int state = head.indexOf("\nState:");
        int uids = head.indexOf("\nUid:");
        if (state < 0 || uids < 0) {
            return false;
        }
        int stateEnd = head.indexOf('\n', state + 1);
        if (head.substring(state + 7, stateEnd < 0 ? head.length() : stateEnd).contains("Z")) {
            return false;
        }
        int uidsEnd = head.indexOf('\n', uids + 1);
        if (uidsEnd < 0) {
            return false;
        }
        // "Uid:\treal\teffective\tsaved\tfilesystem"
        String[] f = head.substring(uids + 5, uidsEnd).trim().split("\\s+", -1);
        String u = Integer.toString(uid);
        return f.length >= 3 && (f[0].equals(u) || f[1].equals(u) || f[2].equals(u));
    }

    /**
     * The bytes on disk that are the run's: everything in its directory, and what its user owns in the temp
     * directories every user may write ({@link SharedTemp#DIRS}). Apparent sizes: a sparse file counts in full.
     */
    public long diskUsed(Lease lease) {
        long used = sizeOf(lease.dir());
        for (Path left : SharedTemp.ownedBy(lease.uid())) {
            used += Files.isDirectory(left, LinkOption.NOFOLLOW_LINKS) ? sizeOf(left) : sizeOrZero(left);
        }
        return used;
    }

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

    /**
     * Removes what {@code uid} left in the shared temp directories (a later run may get the same uid): in those that
     * changed since {@code marks} (null: in all).
     */
    private static void deleteLeftovers(int uid, SharedTemp.Marks marks) {
        SharedTemp.leftSince(uid, marks).forEach(Sandbox::deleteTree);
    }

    private int take() throws IOException {
        for (Integer idle : IDLE) {
            if (idle >= config.uidBase() && idle < config.uidBase() + config.uidCount() && IDLE.remove(idle)) {
                NONE_LEFT.remove(idle);
                return idle;
            }
        }
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
                    deleteLeftovers(uid, null);
                }
                if (free) {
                    LOCKS.put(uid, ch);
                    NONE_LEFT.remove(uid);
                    return uid;
                }
            }
            ch.close();
            CLAIMED.remove(uid);
        }
        throw new IOException(
                "no free sandbox uid: all " + config.uidCount() + " from " + config.uidBase() + " are in use");
    }

    /**
     * The uid is free again: kept by this JVM, its lock held, for the next run here. No process of it is left (the
     * caller checked), and none can start while it is idle: only this JVM starts processes as a pool uid it holds.
     */
    private static void release(int uid) {
        IDLE.push(uid);
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
