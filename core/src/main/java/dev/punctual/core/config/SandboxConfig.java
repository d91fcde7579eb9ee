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
 */
public record SandboxConfig(boolean enabled, int uidBase, int uidCount, Path dir, Network network) {
    public static final int DEFAULT_UID_BASE = 200_000;
    public static final int DEFAULT_UID_COUNT = 1_000;
    public static final Path DEFAULT_DIR = Path.of(System.getProperty("java.io.tmpdir"), "punctual-sandbox");
    /** On: active wherever the executor is root. */
    public static final SandboxConfig DEFAULT =
            new SandboxConfig(true, DEFAULT_UID_BASE, DEFAULT_UID_COUNT, DEFAULT_DIR, Network.SHARED);

    public SandboxConfig {
        if (uidBase < 1000 || uidCount < 1) {
            throw new IllegalArgumentException("the sandbox's uids must be >= 1000, and at least one");
        }
        network = network == null ? Network.SHARED : network;
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
