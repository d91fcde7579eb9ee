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

/**
 * A binary this JVM started itself ({@link ProcessRunner}): its output copied to the log by a thread of its own,
 * its group signalled through {@code kill}, and at its end every process of its uid (or carrying its tag) killed.
 */
final class Spawned extends ProcessRunner.Handle {
    private static final Path PROC = Path.of("/proc");

    private final Process process;
    private final String tag;
    private final Integer sandboxUid;
    /** Whether the process leads its own process group (its pid is the group id), so the group can be killed. */
    private final boolean leadsGroup;

    private final Thread pump;
    private volatile long written;
    private volatile boolean truncated;

    private final long logCapBytes;

    Spawned(
            Process process,
            Path logFile,
            String tag,
            Integer sandboxUid,
            boolean leadsGroup,
            long logCapBytes,
            Duration killGrace) {
        super(killGrace);
        this.logCapBytes = logCapBytes;
        this.leadsGroup = leadsGroup;
        this.process = process;
        this.tag = tag;
        this.sandboxUid = sandboxUid;
        this.pump = Thread.ofPlatform().daemon().name("log-" + process.pid()).unstarted(() -> copy(logFile));
        pump.start();
    }

    @Override
    public Optional<Integer> exitCode() {
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    @Override
    public boolean running() {
        return process.isAlive();
    }

    @Override
    public long pid() {
        return process.pid();
    }

    /** Unbuffered writes, the count published after each. */
    @Override
    public long written() {
        return written;
    }

    @Override
    public void closeGate() throws IOException {
        process.getOutputStream().close();
    }

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

    @Override
    boolean exitsWithin(Duration wait) throws InterruptedException {
        return process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Waits for the binary to exit or the timeout to pass. */
    @Override
    public ProcessRunner.Result await(Duration timeout) throws InterruptedException {
        awaitExitOrKill(timeout);
        process.waitFor();
        if (sandboxUid != null) {
            // Everything of the run's user, its group included: no process can leave its uid (no_new_privs, no
            // capabilities). (The group kill below would cost a process start and a scan of every process.)
            UidPool.killAll(sandboxUid);
        } else {
            // Whatever the leader left behind in its group dies with it, and so does anything carrying its tag.
            signal("KILL");
            killTagged();
        }
        pump.join(Duration.ofSeconds(10).toMillis());
        return new ProcessRunner.Result(process.exitValue(), killedBecause(), written, truncated);
    }

    @Override
    void signal(String signal) {
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
