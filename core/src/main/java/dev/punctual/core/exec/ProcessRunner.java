package dev.punctual.core.exec;

import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.limits.RunLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Runs a user's binary: no shell, a fresh working directory, a scrubbed environment (only what the caller passes),
 * stdout and stderr merged into one capped log file, and the whole process group killed at the timeout, when the
 * run is fenced off, or when the leader exits (so a forked daemon does not outlive its run).
 *
 * <p>A daemon that leaves the group (its own {@code setsid}) escapes a group kill, so every process of a run also
 * carries a random tag in its environment ({@value #TAG}); when the run ends, every process still carrying it (read
 * from {@code /proc/<pid>/environ}, Linux only) is killed too. Only a process that also execs itself with a cleaned
 * environment escapes both; containing that takes a cgroup or PID namespace, which an unprivileged executor lacks.
 */
public final class ProcessRunner {
    private static final System.Logger LOG = System.getLogger(ProcessRunner.class.getName());
    private static final boolean HAS_SETSID = StartChain.SETSID != null;
    /** PATH given to binaries; the executor's own environment is never inherited. */
    public static final String SAFE_PATH = "/usr/local/bin:/usr/bin:/bin";
    /** The environment variable that tags every process of one run. */
    public static final String TAG = "SCHEDULER_PROCESS_TAG";

    private static final Path PROC = Path.of("/proc");
    private static final SecureRandom RANDOM = new SecureRandom();
    /**
     * Every start of a process holds this shared; writing a file that is about to be executed holds it exclusively.
     * A fork copies every open descriptor of the JVM, including one some other thread is writing an executable
     * through, and keeps it until the child's exec: a run started from that file in the meantime fails with
     * "Text file busy" (ETXTBSY). Found by the launch benchmark: 2 runs in 2,000 at 4 threads.
     */
    static final ReadWriteLock EXEC_WRITES = new ReentrantReadWriteLock();

    private final long logCapBytes;
    private final Duration killGrace;
    /** The sandbox's helper, which starts a run in one exec ({@link StartChain#helper}); null: util-linux's tools. */
    private final Path helper;
    /** Whether runs with a uid of their own start through the helper's launcher. */
    private final boolean launch;

    /** Starting runs through the sandbox's helper at its default place if it is there, else through the tools. */
    public ProcessRunner(long logCapBytes, Duration killGrace) {
        this(logCapBytes, killGrace, SandboxConfig.DEFAULT_HELPER);
    }

    /**
     * Starting runs through {@code helper} (punctual.sandbox-helper) if it is there, else, with a warning, through
     * util-linux's tools: six processes' worth of execs a run instead of two. Null: the tools.
     */
    public ProcessRunner(long logCapBytes, Duration killGrace, Path helper) {
        this(logCapBytes, killGrace, helper, true);
    }

    /**
     * As above; {@code launch}: a run with a uid of its own starts through the helper's launcher ({@link Launcher}:
     * a fork of one long-lived process) rather than through a spawn of the helper per run (false, which the
     * launch benchmark compares).
     */
    public ProcessRunner(long logCapBytes, Duration killGrace, Path helper, boolean launch) {
        this.launch = launch;
        this.logCapBytes = logCapBytes;
        this.killGrace = killGrace;
        this.helper = helper != null && Files.isExecutable(helper) ? helper.toAbsolutePath() : null;
        if (this.helper != null) {
            LOG.log(System.Logger.Level.DEBUG, "runs start through " + this.helper + ", one exec each");
        } else if (helper != null) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "no sandbox helper at " + helper + " (punctual.sandbox-helper): runs start through setsid,"
                            + " unshare, prlimit, setpriv and a shell, an exec each");
        }
    }

    /** Whether runs start through the sandbox's helper. */
    public boolean throughHelper() {
        return helper != null;
    }

    /** Whether runs with a uid of their own start through the helper's launcher ({@link Launcher}). */
    public boolean throughLauncher() {
        return helper != null && launch;
    }

    /** Starts the binary; the returned handle waits for it and can kill it. */
    public Handle start(Path binary, List<String> args, Map<String, String> env, Path workDir, Path logFile)
            throws IOException {
        return start(binary, args, env, workDir, logFile, Confinement.NONE);
    }

    /**
     * How a run is held in: its own user (null: the executor's), its rlimits (null: the executor's), whether it
     * gets a network namespace of its own with nothing in it, and a filesystem of its own (null: none; needs a uid).
     */
    public record Confinement(Integer uid, RunLimits limits, boolean privateNetwork, OwnDisk disk) {
        public static final Confinement NONE = new Confinement(null, null, false);

        public Confinement(Integer uid, RunLimits limits, boolean privateNetwork) {
            this(uid, limits, privateNetwork, null);
        }
    }

    /**
     * A filesystem of the run's own ({@link RunDisks}): {@code helper} mounts {@code image} at the run's working
     * directory and binds {@code temps} to directories on it, in a mount namespace of the run's.
     */
    public record OwnDisk(Path helper, Path image, List<Path> temps) {}

    /**
     * Starts the binary held in by {@code c}: with a uid, as that user and its gid, no supplementary groups,
     * {@code no_new_privs} (no setuid binary can give it more); when it ends, every process of that uid is killed,
     * which also catches a daemon that left the group and cleaned its environment.
     */
    public Handle start(
            Path binary, List<String> args, Map<String, String> env, Path workDir, Path logFile, Confinement c)
            throws IOException {
        return start(binary, args, env, workDir, logFile, c, false);
    }

    /**
     * The exit code of a process held at its gate ({@link #startGated}) whose gate was closed without a release:
     * the binary never ran.
     */
    public static final int NOT_RELEASED = 125;

    /**
     * Starts the process that will run the binary, held in by {@code c}, but holds it just before the binary:
     * {@link Handle#release} lets the binary start (an exec in place, well under a millisecond), {@link Handle#kill}
     * ends it unstarted. Everything a start costs (the process chain, the user and limits) is paid before the
     * release. Without the helper, needs {@code /bin/sh}.
     */
    public Handle startGated(
            Path binary, List<String> args, Map<String, String> env, Path workDir, Path logFile, Confinement c)
            throws IOException {
        return start(binary, args, env, workDir, logFile, c, true);
    }

    private Handle start(
            Path binary,
            List<String> args,
            Map<String, String> env,
            Path workDir,
            Path logFile,
            Confinement c,
            boolean gated)
            throws IOException {
        Integer sandboxUid = c.uid();
        if (c.disk() != null && sandboxUid == null) {
            throw new IOException("a filesystem of its own is for a run with a uid of its own");
        }
        List<String> tail = new ArrayList<>();
        tail.add(binary.toAbsolutePath().toString());
        tail.addAll(args);
        // A filesystem of its own takes the helper, which the run's disks were made with: the whole start goes
        // through it then, even where this runner was given none.
        Path through = helper != null ? helper : c.disk() != null ? c.disk().helper() : null;
        List<String> command;
        if (through != null) {
            command = StartChain.helper(through, c, gated, workDir, tail);
        } else {
            if (sandboxUid != null && StartChain.SETPRIV == null) {
                throw new IOException("the sandbox needs util-linux's setpriv");
            }
            if (c.limits() != null && StartChain.PRLIMIT == null) {
                throw new IOException("run limits need util-linux's prlimit");
            }
            command = StartChain.tools(c, gated, env.containsKey("PWD"), tail);
        }
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("PATH", SAFE_PATH);
        environment.put("HOME", workDir.toString());
        environment.put("TMPDIR", workDir.toString());
        environment.putAll(env);
        // nextBytes, not generateSeed: a tag must be unguessable, not a seed drawn from the kernel's pool each run.
        byte[] random = new byte[12];
        RANDOM.nextBytes(random);
        String tag = HexFormat.of().formatHex(random);
        environment.put(TAG, tag);
        if (launch && helper != null && sandboxUid != null) {
            return Launcher.of(helper)
                    .start(command, environment, workDir, logFile, logCapBytes, sandboxUid, killGrace);
        }
        ProcessBuilder pb =
                new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(environment);
        Process p = spawn(pb);
        if (!gated) {
            p.getOutputStream().close();
        }
        // The helper and setsid make the run's first process the leader of its own process group.
        return new Spawned(p, logFile, tag, sandboxUid, through != null || HAS_SETSID, logCapBytes, killGrace);
    }

    /** The absolute path of the system's {@code name}, or null when it has none. */
    static String installed(String name) {
        for (String dir : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    /** Starts {@code pb} under {@link #EXEC_WRITES}: every process this JVM starts must. */
    static Process spawn(ProcessBuilder pb) throws IOException {
        EXEC_WRITES.readLock().lock();
        try {
            return pb.start();
        } finally {
            EXEC_WRITES.readLock().unlock();
        }
    }

    /** Null when a process can be given an empty network namespace here, else why not. */
    static String probePrivateNetwork() {
        try {
            Process p = spawn(new ProcessBuilder("unshare", "--net", "true").redirectErrorStream(true));
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "unshare --net did not finish";
            }
            return p.exitValue() == 0 ? null : out.isEmpty() ? "unshare --net exited " + p.exitValue() : out;
        } catch (IOException e) {
            return "unshare: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /**
     * A running binary: started by this JVM ({@link Spawned}) or by the sandbox's launcher ({@link Launcher}). How
     * it is killed is the same for both; how it is signalled and waited for is each one's own.
     */
    public abstract static sealed class Handle permits Spawned, Launcher.Launched {
        private final AtomicReference<String> killedBecause = new AtomicReference<>();
        private final Duration killGrace;

        Handle(Duration killGrace) {
            this.killGrace = killGrace;
        }

        /** The exit code, once the process has exited. */
        public abstract Optional<Integer> exitCode();

        /** Whether the binary (or its gate) has not exited yet. */
        public abstract boolean running();

        public abstract long pid();

        /**
         * The output bytes in the log file so far (at most the cap; the truncation note not counted): every byte
         * below this count is in the file.
         */
        public abstract long written();

        /** Ends a gated process's input without a release: its gate exits, the binary unstarted. */
        public abstract void closeGate() throws IOException;

        /**
         * Lets a gated binary ({@link #startGated}) start: false if its gate is gone (the process ended meanwhile,
         * or was killed), in which case the binary did not start.
         */
        public abstract boolean release();

        /** Waits for the binary to exit or the timeout to pass; then every process of its run is killed. */
        public abstract Result await(Duration timeout) throws InterruptedException;

        /** Sends {@code signal} ({@code TERM} or {@code KILL}) to the run's process group. */
        abstract void signal(String signal);

        /** Whether the binary has exited, waiting for it up to {@code wait}. */
        abstract boolean exitsWithin(Duration wait) throws InterruptedException;

        /** Kills the group (TERM, then KILL after the grace period) and records why. */
        public final void kill(String reason) {
            if (killedBecause.compareAndSet(null, reason)) {
                signal("TERM");
                try {
                    if (!exitsWithin(killGrace)) {
                        signal("KILL");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    signal("KILL");
                }
            }
        }

        /**
         * Kills the group at once (KILL, no grace) and records why: for a run over a limit, which the grace of a TERM
         * would let go on for {@code killGrace} more.
         */
        public final void killNow(String reason) {
            if (killedBecause.compareAndSet(null, reason)) {
                signal("KILL");
            }
        }

        /** Why the binary was killed; null if it exited by itself. */
        final String killedBecause() {
            return killedBecause.get();
        }

        /** Waits up to {@code timeout} for the exit; past it, kills the binary, saying so, and waits on. */
        final void awaitExitOrKill(Duration timeout) throws InterruptedException {
            if (!exitsWithin(timeout)) {
                kill("timed out after "
                        + (timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + "s" : timeout.toMillis() + "ms"));
            }
        }
    }

    /** Whether {@code needle} occurs in {@code haystack} as a whole NUL-separated entry. */
    static boolean contains(byte[] haystack, byte[] needle) {
        int start = 0;
        for (int i = 0; i <= haystack.length; i++) {
            if (i == haystack.length || haystack[i] == 0) {
                if (i - start == needle.length && Arrays.equals(haystack, start, i, needle, 0, needle.length)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }

    /** How the binary ended. {@code killedBecause} is null when it exited by itself. */
    public record Result(int exitCode, String killedBecause, long outputBytes, boolean truncated) {}
}
