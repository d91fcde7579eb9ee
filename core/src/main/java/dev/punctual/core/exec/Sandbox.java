package dev.punctual.core.exec;

import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.limits.RunLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
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
 * <p>Its parts: the uid pool ({@link UidPool}), the processes of a uid ({@link UidProcesses}), the executable copies
 * ({@link ExecutableCopies}), the runs' own filesystems ({@link RunDisks}) and the temp directories every user may
 * write ({@link SharedTemp}).
 */
public final class Sandbox {
    private static final System.Logger LOG = System.getLogger(Sandbox.class.getName());

    private final SandboxConfig config;
    private final boolean active;
    /** {@code config.dir()}, traversable by the runs' users; {@code locks} in it ({@link UidPool}) is root's alone. */
    private final Path root;

    private final UidPool uids;
    /** The runs' own filesystems; null where their disks are watched ({@link RunWatch}). */
    private final RunDisks disks;

    private final ExecutableCopies executables;

    private Sandbox(SandboxConfig config, boolean active) {
        this.config = config;
        this.active = active;
        if (!active) {
            this.root = null;
            this.uids = new UidPool(config, null);
            this.disks = null;
            this.executables = new ExecutableCopies(null);
            return;
        }
        Path locks;
        try {
            this.root = Files.createDirectories(config.dir());
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
            locks = Files.createDirectories(root.resolve("locks"));
            Files.setPosixFilePermissions(locks, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the sandbox directory " + config.dir(), e);
        }
        this.uids = new UidPool(config, locks);
        this.executables = new ExecutableCopies(root);
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
            for (String line : Files.readAllLines(UidProcesses.PROC.resolve("self/status"))) {
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
        return executables.of(owner, sha256, cached);
    }

    /**
     * A uid no live process uses and a private directory for it, to run {@code executable} (see above), with a
     * filesystem of {@code diskMb} of its own where the sandbox gives one: its image made here, before the run's
     * instant, and mounted at its directory as it starts ({@link #confinement}).
     */
    public Lease open(Path executable, int diskMb) throws IOException {
        int uid = uids.take();
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
            uids.release(uid);
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
        boolean gone = UidPool.noneLeftKnown(lease.uid()) || UidPool.killAll(lease.uid());
        deleteTree(lease.dir());
        if (lease.image() != null) {
            deleteTree(lease.image());
        }
        SharedTemp.deleteLeftovers(lease.uid(), lease.tempAtOpen());
        if (gone) {
            uids.release(lease.uid());
        } else {
            // Something of it survived the kills (a zombie not yet reaped): the uid stays out of the pool.
            LOG.log(Level.WARNING, "uid " + lease.uid() + " still has processes; not reusing it");
        }
    }

    /** Removes the executable copies (the executor is stopping: no run of this sandbox is left). */
    public void removeExecutables() {
        executables.removeAll();
    }

    /** The live processes of {@code uid} (zombies excluded: they hold nothing and cannot be killed). */
    public static List<Long> pidsOf(int uid) {
        return UidProcesses.pidsOf(uid);
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
