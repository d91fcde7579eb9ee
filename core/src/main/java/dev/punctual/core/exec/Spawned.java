package dev.punctual.core.exec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A binary this JVM started itself ({@link ProcessRunner}): its output copied to the log by a thread of its own,
 * its group signalled through {@code kill}, and at its end every process of its uid (or carrying its tag) killed.
 */
final class Spawned implements ProcessRunner.Handle {
    private static final Path PROC = Path.of("/proc");

    private final Process process;
    private final String tag;
    private final Integer sandboxUid;
    /** Whether the process leads its own process group (its pid is the group id), so the group can be killed. */
    private final boolean leadsGroup;

    private final Thread pump;
    private final AtomicReference<String> killedBecause = new AtomicReference<>();
    private volatile long written;
    private volatile boolean truncated;

    private final long logCapBytes;
    private final Duration killGrace;

    Spawned(
            Process process,
            Path logFile,
            String tag,
            Integer sandboxUid,
            boolean leadsGroup,
            long logCapBytes,
            Duration killGrace) {
        this.logCapBytes = logCapBytes;
        this.killGrace = killGrace;
        this.leadsGroup = leadsGroup;
        this.process = process;
        this.tag = tag;
        this.sandboxUid = sandboxUid;
        this.pump = Thread.ofPlatform().daemon().name("log-" + process.pid()).unstarted(() -> copy(logFile));
        pump.start();
    }

    /** The exit code, once the process has exited. */
    @Override
    public Optional<Integer> exitCode() {
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    /** Whether the binary (or its gate) has not exited yet. */
    @Override
    public boolean running() {
        return process.isAlive();
    }

    @Override
    public long pid() {
        return process.pid();
    }

    /**
     * The output bytes in the log file so far (at most the cap; the truncation note not counted): every byte
     * below this count is in the file (unbuffered writes, the count published after each).
     */
    @Override
    public long written() {
        return written;
    }

    /** Ends a gated process's input without a release: its gate exits, the binary unstarted. */
    @Override
    public void closeGate() throws IOException {
        process.getOutputStream().close();
    }

    /**
     * Lets a gated binary ({@link #startGated}) start: false if its gate is gone (the process ended meanwhile,
     * or was killed), in which case the binary did not start.
     */
    @Override
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
    @Override
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
    @Override
    public void killNow(String reason) {
        if (killedBecause.compareAndSet(null, reason)) {
            signalGroup("KILL");
        }
    }

    /** Waits for the binary to exit or the timeout to pass. */
    @Override
    public ProcessRunner.Result await(Duration timeout) throws InterruptedException {
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
        return new ProcessRunner.Result(process.exitValue(), killedBecause.get(), written, truncated);
    }

    private void signalGroup(String signal) {
        List<String> kill = new ArrayList<>(List.of("kill", "-s", signal, "--"));
        kill.add(leadsGroup ? "-" + process.pid() : Long.toString(process.pid()));
        try {
            Process k = ProcessRunner.spawn(
                    new ProcessBuilder(kill).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD));
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
        byte[] needle = (ProcessRunner.TAG + "=" + tag).getBytes(StandardCharsets.UTF_8);
        for (int round = 0; round < 5; round++) {
            List<ProcessHandle> found = new ArrayList<>();
            try (DirectoryStream<Path> pids = Files.newDirectoryStream(PROC, "[0-9]*")) {
                for (Path dir : pids) {
                    try {
                        if (ProcessRunner.contains(Files.readAllBytes(dir.resolve("environ")), needle)) {
                            ProcessHandle.of(Long.parseLong(dir.getFileName().toString()))
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
