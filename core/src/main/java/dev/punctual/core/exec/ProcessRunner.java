package dev.punctual.core.exec;

import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.limits.RunLimits;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
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

    /** Starting runs through the sandbox's helper at its default place if it is there, else through the tools. */
    public ProcessRunner(long logCapBytes, Duration killGrace) {
        this(logCapBytes, killGrace, SandboxConfig.DEFAULT_HELPER);
    }

    /**
     * Starting runs through {@code helper} (punctual.sandbox-helper) if it is there, else, with a warning, through
     * util-linux's tools: six processes' worth of execs a run instead of two. Null: the tools.
     */
    public ProcessRunner(long logCapBytes, Duration killGrace, Path helper) {
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
        ProcessBuilder pb =
                new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().put("PATH", SAFE_PATH);
        pb.environment().put("HOME", workDir.toString());
        pb.environment().put("TMPDIR", workDir.toString());
        pb.environment().putAll(env);
        String tag = HexFormat.of().formatHex(RANDOM.generateSeed(12));
        pb.environment().put(TAG, tag);
        Process p = spawn(pb);
        if (!gated) {
            p.getOutputStream().close();
        }
        // The helper and setsid make the run's first process the leader of its own process group.
        Handle h = new Handle(p, logFile, tag, sandboxUid, through != null || HAS_SETSID);
        h.pump.start();
        return h;
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

    /** A running binary. */
    public final class Handle {
        private final Process process;
        private final String tag;
        private final Integer sandboxUid;
        /** Whether the process leads its own process group (its pid is the group id), so the group can be killed. */
        private final boolean leadsGroup;

        private final Thread pump;
        private final AtomicReference<String> killedBecause = new AtomicReference<>();
        private volatile long written;
        private volatile boolean truncated;

        private Handle(Process process, Path logFile, String tag, Integer sandboxUid, boolean leadsGroup) {
            this.leadsGroup = leadsGroup;
            this.process = process;
            this.tag = tag;
            this.sandboxUid = sandboxUid;
            this.pump =
                    Thread.ofPlatform().daemon().name("log-" + process.pid()).unstarted(() -> copy(logFile));
        }

        /** The exit code, once the process has exited. */
        public Optional<Integer> exitCode() {
            return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
        }

        /** Whether the binary (or its gate) has not exited yet. */
        public boolean running() {
            return process.isAlive();
        }

        public long pid() {
            return process.pid();
        }

        /**
         * The output bytes in the log file so far (at most the cap; the truncation note not counted): every byte
         * below this count is in the file (unbuffered writes, the count published after each).
         */
        public long written() {
            return written;
        }

        /** Ends a gated process's input without a release: its gate exits, the binary unstarted. */
        void closeGate() throws IOException {
            process.getOutputStream().close();
        }

        /**
         * Lets a gated binary ({@link #startGated}) start: false if its gate is gone (the process ended meanwhile,
         * or was killed), in which case the binary did not start.
         */
        public boolean release() {
            try (OutputStream gate = process.getOutputStream()) {
                gate.write('\n');
                gate.flush();
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        /** Kills the group (TERM, then KILL after the grace period) and records why. */
        public void kill(String reason) {
            if (killedBecause.compareAndSet(null, reason)) {
                signalGroup("TERM");
                try {
                    if (!process.waitFor(killGrace.toMillis(), TimeUnit.MILLISECONDS)) {
                        signalGroup("KILL");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    signalGroup("KILL");
                }
            }
        }

        /**
         * Kills the group at once (KILL, no grace) and records why: for a run over a limit, which the grace of a TERM
         * would let go on for {@code killGrace} more.
         */
        public void killNow(String reason) {
            if (killedBecause.compareAndSet(null, reason)) {
                signalGroup("KILL");
            }
        }

        /** Waits for the binary to exit or the timeout to pass. */
        public Result await(Duration timeout) throws InterruptedException {
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                kill("timed out after "
                        + (timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + "s" : timeout.toMillis() + "ms"));
                process.waitFor();
            }
            if (sandboxUid != null) {
                // Everything of the run's user, its group included: no process can leave its uid (no_new_privs, no
                // capabilities). (The group kill below would cost a process start and a scan of every process.)
                Sandbox.killAll(sandboxUid);
            } else {
                // Whatever the leader left behind in its group dies with it, and so does anything carrying its tag.
                signalGroup("KILL");
                killTagged();
            }
            pump.join(Duration.ofSeconds(10).toMillis());
            return new Result(process.exitValue(), killedBecause.get(), written, truncated);
        }

        private void signalGroup(String signal) {
            List<String> kill = new ArrayList<>(List.of("kill", "-s", signal, "--"));
            kill.add(leadsGroup ? "-" + process.pid() : Long.toString(process.pid()));
            try {
                Process k = spawn(new ProcessBuilder(kill)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD));
                k.waitFor(5, TimeUnit.SECONDS);
            } catch (IOException e) {
                process.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
            process.descendants().forEach(ProcessHandle::destroyForcibly);
        }

        /**
         * Kills every process whose environment carries this run's tag, until a scan finds none (a daemon may fork
         * while it is being killed). Processes of other users cannot be read, and are not ours to kill anyway.
         */
        private void killTagged() {
            if (!Files.isDirectory(PROC)) {
                return;
            }
            byte[] needle = (TAG + "=" + tag).getBytes(StandardCharsets.UTF_8);
            for (int round = 0; round < 5; round++) {
                List<ProcessHandle> found = new ArrayList<>();
                try (DirectoryStream<Path> pids = Files.newDirectoryStream(PROC, "[0-9]*")) {
                    for (Path dir : pids) {
                        try {
                            if (contains(Files.readAllBytes(dir.resolve("environ")), needle)) {
                                ProcessHandle.of(
                                                Long.parseLong(dir.getFileName().toString()))
                                        .ifPresent(found::add);
                            }
                        } catch (IOException | RuntimeException gone) {
                            // Exited meanwhile, or not readable: not one of ours.
                        }
                    }
                } catch (IOException e) {
                    return;
                }
                if (found.isEmpty()) {
                    return;
                }
                found.forEach(ProcessHandle::destroyForcibly);
                for (ProcessHandle h : found) {
                    h.onExit().completeOnTimeout(h, 1, TimeUnit.SECONDS).join();
                }
            }
        }

        private void copy(Path logFile) {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = process.getInputStream();
                    OutputStream out = Files.newOutputStream(logFile)) {
                int n;
                // Only this thread writes the count; others read the volatile copy, published after each chunk.
                long total = 0;
                while ((n = in.read(buf)) >= 0) {
                    long room = logCapBytes - total;
                    if (room > 0) {
                        int take = (int) Math.min(room, n);
                        out.write(buf, 0, take);
                        total += take;
                        written = total;
                    }
                    if (n > room && !truncated) {
                        truncated = true;
                        out.write(("\n[punctual: output truncated at " + logCapBytes + " bytes]\n")
                                .getBytes(StandardCharsets.UTF_8));
                    }
                    // Past the cap we keep reading and discard, so the binary never blocks on a full pipe.
                }
            } catch (IOException ignored) {
                // The pipe closes when the group is killed; what was written so far is the log.
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
