package dev.punctual.core.config;

import java.nio.file.Path;

/**
 * How the executor isolates runs ({@code dev.punctual.core.exec.Sandbox}), as configured by
 * {@code punctual.sandbox*}.
 *
 * @param enabled  run binaries under pool uids (only when the executor is root; otherwise a loud warning)
 * @param uidBase  the first uid (and gid) of the pool
 * @param uidCount how many uids the pool has (at least the executor's concurrency)
 * @param dir      where run directories and executable copies live: every directory above it must be
 *                 traversable by other users (the default is under the system temp directory)
 * @param network  what a run's network is: the executor's ({@link Network#SHARED}) or none of its own
 * @param disk     how a run's {@code diskMb} is held: by a filesystem of that size, or by watching its disk
 * @param helper   the program that gives a run its filesystem ({@code core/src/main/c/punctual-sandbox.c})
 */
public record SandboxConfig(
        boolean enabled, int uidBase, int uidCount, Path dir, Network network, Disk disk, Path helper) {
    public static final int DEFAULT_UID_BASE = 200_000;
    public static final int DEFAULT_UID_COUNT = 1_000;
    public static final Path DEFAULT_DIR = Path.of(System.getProperty("java.io.tmpdir"), "punctual-sandbox");
    /** The helper's file name, and where it is unless configured: beside the application ({@link #beside}). */
    public static final String HELPER_NAME = "punctual-sandbox";

    public static final Path DEFAULT_HELPER = beside(HELPER_NAME);
    /** On: active wherever the executor is root. */
    public static final SandboxConfig DEFAULT = new SandboxConfig(
            true, DEFAULT_UID_BASE, DEFAULT_UID_COUNT, DEFAULT_DIR, Network.SHARED, Disk.AUTO, DEFAULT_HELPER);

    public SandboxConfig {
        if (uidBase < 1000 || uidCount < 1) {
            throw new IllegalArgumentException("the sandbox's uids must be >= 1000, and at least one");
        }
        network = network == null ? Network.SHARED : network;
        disk = disk == null ? Disk.AUTO : disk;
        helper = helper == null ? DEFAULT_HELPER : helper;
    }

    /** The defaults for the disk ({@link Disk#AUTO}, the helper beside the application). */
    public SandboxConfig(boolean enabled, int uidBase, int uidCount, Path dir, Network network) {
        this(enabled, uidBase, uidCount, dir, network, null, null);
    }

    /** This configuration with {@code disk} and {@code helper} (null: the default helper). */
    public SandboxConfig withDisk(Disk disk, Path helper) {
        return new SandboxConfig(enabled, uidBase, uidCount, dir, network, disk, helper);
    }

    /**
     * {@code name} in the directory the application runs from: a native executable's own (the native image's {@code
     * /work}), or that of the first class path entry: the JVM image's {@code /deployments} (beside {@code
     * quarkus-run.jar}), a module's {@code target} in a build (beside {@code target/test-classes}). The images also
     * name theirs ({@code PUNCTUAL_SANDBOX_HELPER}).
     */
    static Path beside(String name) {
        Path app;
        if ("runtime".equals(System.getProperty("org.graalvm.nativeimage.imagecode"))) {
            app = ProcessHandle.current().info().command().map(Path::of).orElse(null);
        } else {
            String first = System.getProperty("java.class.path", "").split(java.io.File.pathSeparator, -1)[0];
            app = first.isEmpty() ? null : Path.of(first).toAbsolutePath();
        }
        return app == null || app.getParent() == null
                ? Path.of(name)
                : app.getParent().resolve(name);
    }

    /** How a run's {@code diskMb} is held ({@code punctual.sandbox-disk}). */
    public enum Disk {
        /** A filesystem of its own where the executor can give it one (see {@link #FILESYSTEM}), else {@link #WATCH}. */
        AUTO,
        /**
         * A filesystem of its own of {@code diskMb} for its directory and temp directories: a loop-mounted ext4 image
         * in a mount namespace of its own. Takes root with CAP_SYS_ADMIN and loop devices (not Fargate), the helper,
         * and {@code mkfs.ext4}; the executor refuses to start without them.
         */
        FILESYSTEM,
        /** Its directory and what its user owns in the shared temp directories, looked at once a second. */
        WATCH;

        /** {@code auto}, {@code filesystem} or {@code watch}, as configured. */
        public static Disk parse(String v) {
            return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
                case "auto" -> AUTO;
                case "filesystem" -> FILESYSTEM;
                case "watch" -> WATCH;
                default ->
                    throw new IllegalArgumentException(
                            "punctual.sandbox-disk must be auto, filesystem or watch, not " + v);
            };
        }
    }

    /** What a sandboxed run can reach over the network. */
    public enum Network {
        /** The executor's own network (on ECS, the task's; what it may reach is the security group's choice). */
        SHARED,
        /**
         * A network namespace of its own with nothing in it, not even a loopback that is up: no route anywhere.
         * Creating it takes CAP_SYS_ADMIN, which Fargate never grants; the executor refuses to start without it.
         */
        NONE;

        /** {@code shared} or {@code none}, as configured. */
        public static Network parse(String v) {
            return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
                case "shared" -> SHARED;
                case "none" -> NONE;
                default ->
                    throw new IllegalArgumentException("punctual.sandbox-network must be shared or none, not " + v);
            };
        }
    }
}
