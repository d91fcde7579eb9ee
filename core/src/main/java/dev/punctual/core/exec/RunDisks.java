package dev.punctual.core.exec;

import dev.punctual.core.config.SandboxConfig;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A filesystem of its own for every sandboxed run ({@code punctual.sandbox-disk}), which makes its {@code diskMb} a
 * hard limit: an ext4 image of exactly that size, made while the run is readied, mounted by the helper ({@code
 * punctual-sandbox}, see {@code core/src/main/c}) in a mount namespace of the run's own, with its directory and its
 * temp directories ({@link SharedTemp#DIRS}) on it. Everything the run can write there is in the image, and the
 * image, sparse, never takes more of the executor's disk than its size. When the run's last process ends, the kernel
 * unmounts the filesystem and frees its loop device; the executor then deletes the image.
 *
 * <p>Not tmpfs, which would be simpler: its pages are memory, charged to the executor's task, and a run filling its
 * disk could get the executor itself killed for memory.
 */
final class RunDisks {
    private static final System.Logger LOG = System.getLogger(RunDisks.class.getName());
    private static final String MKFS = ProcessRunner.installed("mkfs.ext4");
    private static final String TRUE = ProcessRunner.installed("true");
    static final long MIB = 1024L * 1024;

    /**
     * The image's format. No root reserve ({@code -m 0}: a run is never root), no journal (nothing of a run's disk
     * outlives it), no room kept for resizing, and inode tables left unwritten (the helper mounts it {@code
     * noinit_itable}, so they stay so): about 100 KiB of the image is written at first. One inode per 16 KiB, 4 KiB
     * blocks, whatever the size (mke2fs picks 1 KiB blocks and four times the inodes below 512 MiB otherwise).
     */
    private static final List<String> FORMAT = List.of(
            "-q",
            "-F",
            "-m",
            "0",
            "-b",
            "4096",
            "-i",
            "16384",
            "-I",
            "256",
            "-O",
            "^has_journal,^resize_inode",
            "-E",
            "nodiscard,lazy_itable_init=1");

    private final Path helper;
    /** Where the images are: root's alone. */
    private final Path images;

    private final List<Path> temps;

    private RunDisks(Path helper, Path images, List<Path> temps) {
        this.helper = helper;
        this.images = images;
        this.temps = temps;
    }

    /**
     * The run disks of a sandbox in {@code root} (running as root), or null where its runs' disks are watched
     * instead: as configured, or, with {@code auto}, because the probe failed (logged once, loudly). With {@code
     * filesystem}, a failed probe stops the start.
     */
    static RunDisks choose(SandboxConfig config, Path root) {
        if (config.disk() == SandboxConfig.Disk.WATCH) {
            LOG.log(Level.WARNING, "punctual.sandbox-disk=watch: " + WATCHED);
            return null;
        }
        RunDisks disks;
        String why;
        try {
            Path images = Files.createDirectories(root.resolve("disks"));
            Files.setPosixFilePermissions(images, PosixFilePermissions.fromString("rwx------"));
            disks = new RunDisks(config.helper().toAbsolutePath(), images, sharedTemps());
            why = disks.whyNot(root, config.uidBase());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + root.resolve("disks"), e);
        }
        if (why == null) {
            LOG.log(
                    Level.INFO,
                    "every run gets a filesystem of its own of its diskMb, for its directory and " + disks.temps
                            + ": a hard limit");
            return disks;
        }
        if (config.disk() == SandboxConfig.Disk.FILESYSTEM) {
            throw new IllegalStateException("punctual.sandbox-disk=filesystem, but a run cannot get a filesystem of "
                    + "its own here: " + why + ". Give the executor CAP_SYS_ADMIN and loop devices, or set it to "
                    + "auto or watch");
        }
        LOG.log(
                Level.WARNING,
                "punctual.sandbox-disk=auto, and runs CANNOT get a filesystem of their own here (" + why + "): "
                        + WATCHED);
        return null;
    }

    /** What a watched disk means, for the logs. */
    static final String WATCHED = "a run's diskMb is enforced by looking at its disk once a second, NOT as a hard "
            + "limit: a run can write past it, at most fileSizeMb per file and as many files as it manages, until "
            + "the next look kills it";

    /** The temp directories a run gets on its filesystem: the shared ones, once each (a symlink counts once). */
    private static List<Path> sharedTemps() throws IOException {
        Set<Path> real = new LinkedHashSet<>();
        for (Path t : SharedTemp.DIRS) {
            real.add(t.toRealPath());
        }
        return List.copyOf(real);
    }

    /** Null when a run in {@code root} can be given its filesystem here (tried once), else why not. */
    private String whyNot(Path root, int uid) throws IOException {
        if (MKFS == null) {
            return "no mkfs.ext4 (e2fsprogs)";
        }
        if (TRUE == null) {
            return "no true";
        }
        if (!Files.isExecutable(helper)) {
            return "no helper at " + helper + " (punctual.sandbox-helper)";
        }
        Path real = root.toRealPath();
        for (Path t : temps) {
            if (real.startsWith(t)) {
                return "punctual.sandbox-dir " + real + " is under " + t + ": a run's own " + t
                        + " would hide its directory and binary; put it elsewhere";
            }
        }
        Path dir = Files.createTempDirectory(images, "probe-");
        Path image = images.resolve(dir.getFileName() + ".img");
        try {
            make(image, 1);
            List<String> command = new ArrayList<>(List.of(
                    helper.toString(), "-d", image.toString(), "-w", dir.toString(), "-u", Integer.toString(uid)));
            temps.forEach(t -> command.addAll(List.of("-t", t.toString())));
            command.addAll(List.of("--", TRUE));
            Run r = run(command);
            return r.code() == 0 ? null : "its helper exited " + r.code() + ": " + r.output();
        } catch (IOException e) {
            return e.getMessage();
        } finally {
            Files.deleteIfExists(image);
            Sandbox.deleteTree(dir);
        }
    }

    /** A fresh image of {@code diskMb} for the run of {@code uid}, formatted; the uid's previous one is replaced. */
    Path make(int uid, int diskMb) throws IOException {
        Path image = images.resolve(uid + ".img");
        // Left by an executor that died during a run of this uid (the uid's lock keeps live ones' away).
        Files.deleteIfExists(image);
        make(image, diskMb);
        return image;
    }

    private static void make(Path image, int diskMb) throws IOException {
        Files.createFile(image, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
            // Sparse: only what is written takes space on the executor's disk, and never more than this size.
            f.setLength(diskMb * MIB);
        }
        List<String> command = new ArrayList<>(List.of(MKFS));
        command.addAll(FORMAT);
        command.add(image.toString());
        Run r = run(command);
        if (r.code() != 0) {
            Files.deleteIfExists(image);
            throw new IOException("mkfs.ext4 exited " + r.code() + ": " + r.output());
        }
    }

    /** What the run of this image is started with ({@link ProcessRunner.Confinement}). */
    ProcessRunner.OwnDisk disk(Path image) {
        return new ProcessRunner.OwnDisk(helper, image, temps);
    }

    private record Run(int code, String output) {}

    /** Runs {@code command} (root's own tools, no environment), for its exit code and output. */
    private static Run run(List<String> command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().put("PATH", ProcessRunner.SAFE_PATH);
        Process p = ProcessRunner.spawn(pb);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(command.get(0) + " did not finish in 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted", e);
        }
        return new Run(p.exitValue(), out);
    }

    /**
     * Whether the filesystem of {@code image}, no longer mounted, was left full: no inode free, or less than 1 MiB
     * (or 1% of it, if more) free beyond the blocks ext4 keeps for itself (2% of them, at most 4096): at the first
     * ENOSPC a few hundred KiB more may be free, reserved for metadata when the write failed and released since.
     * Read from its superblock, which the unmount at the run's end wrote. False when that cannot be read.
     */
    static boolean full(Path image) {
        ByteBuffer sb = ByteBuffer.allocate(1024).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(image, StandardOpenOption.READ)) {
            while (sb.hasRemaining() && ch.read(sb, 1024L + sb.position()) > 0) {
                // Reads the superblock, at 1024.
            }
        } catch (IOException e) {
            return false;
        }
        if (sb.hasRemaining() || sb.getShort(0x38) != (short) 0xEF53) {
            return false;
        }
        boolean wide = (sb.getInt(0x60) & 0x80) != 0;
        long blocks = u32(sb, 0x04) | (wide ? u32(sb, 0x150) << 32 : 0);
        long free = u32(sb, 0x0C) | (wide ? u32(sb, 0x158) << 32 : 0);
        long kept = Math.min(blocks / 50, 4096);
        long blockSize = 1024L << Math.min(sb.getInt(0x18), 6);
        return u32(sb, 0x10) == 0 || free - kept < Math.max(blocks / 100, MIB / blockSize);
    }

    private static long u32(ByteBuffer b, int at) {
        return Integer.toUnsignedLong(b.getInt(at));
    }
}
