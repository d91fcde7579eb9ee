package dev.punctual.core.exec;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Kills a run whose executor stopped renewing it, from outside the executor's JVM. Self-fencing lives in the JVM:
 * a JVM that is frozen (SIGSTOP, a long GC pause, a starved CPU, a debugger) cannot kill its binaries, which run on
 * while the lease passes to another executor and a second attempt starts beside them.
 *
 * <p>One small shell process per executor reads a deadline per run, {@code <name>.deadline} in a directory of the
 * executor's own ({@code <wall-clock ms> <process group or -> <uid or ->}); the executor writes it just before the
 * binary starts (by uid: the group is not known yet), adds the group once it is, and pushes it forward with every
 * heartbeat that renewed the lease. Once the wall clock passes a deadline, the shell kills the run's process group
 * and every process of its uid, and renames the file ({@code .killing}, then {@code .killed}), so the executor, when
 * it runs again, records nothing for that attempt (it is not its own any more). The deadline is {@link #margin}
 * before the lease ends: the run is dead before another executor can claim it.
 *
 * <p>The shell dies with the executor (parent-death signal), as its binaries do; only a frozen executor leaves it
 * alone. A whole host frozen with its binaries stays out of reach: nothing on it runs to kill them.
 */
final class Supervisor implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Supervisor.class.getName());
    /** How often the shell looks at the deadlines. */
    static final long POLL_MS = 200;
    /** How long {@link #disarm} waits for a kill under way (two signals and a scan of the processes). */
    static final Duration KILL_WAIT = Duration.ofSeconds(5);

    /** Kills the runs whose deadline ({@code $now}, wall-clock ms) has passed. */
    static final String KILL_PASSED = """
              for f in "$dir"/*.deadline; do
                [ -e "$f" ] || continue
                read -r deadline group uid < "$f" || continue
                if [ "$now" -gt "$deadline" ]; then
                  mv "$f" "${f%.deadline}.killing" 2>/dev/null || continue
                  [ "$group" != "-" ] && env kill -s KILL -- "-$group" 2>/dev/null
                  [ "$uid" != "-" ] && pkill -KILL -U "$uid" 2>/dev/null
                  mv -f "${f%.deadline}.killing" "${f%.deadline}.killed"
                  echo "supervisor: killed $(basename "$f" .deadline): its lease was not renewed" >&2
                fi
              done
            """;
    // (kill through env: dash's builtin kill takes no negative pid, which names a process group.) The rename to
    // .killing claims the kill, before it: once the executor's extend finds no deadline, the kill is under way or
    // done, so a binary it started after the deadline passed is its own to kill; a deadline it moved just before
    // the claim is acted on anyway, and its binary, started by then, dies by its uid. A deadline gone before the
    // claim (the rename fails) was disarmed: the run is over, and its group and uid may be another run's already.
    // (Found by the fault suite: the kill went ahead after a failed rename, and pkill -U killed the next run given
    // the same uid.) The executor gives the uid back only once .killing is gone (disarm), so a claimed kill never
    // reaches a later run either.

    /**
     * The loop in {@code bash}, which forks nothing while no deadline has passed: the time from
     * {@code EPOCHREALTIME} (microseconds; its decimal mark follows the locale), the pause a {@code read} with a
     * timeout on the shell's input, a pipe the executor holds open and never writes (should it end, {@code sleep}
     * instead). Forking {@code date} and {@code sleep} at every poll, as {@link #SH_SCRIPT} does, cost each idle
     * executor about 5 % of a core here, where a fork and an exec take 3–4 ms of CPU.
     */
    static final String BASH_SCRIPT = """
            dir="$1"
            while :; do
              now=${EPOCHREALTIME/[.,]/}; now=${now%???}
            """ + KILL_PASSED + """
              read -r -t 0.2 _; [ $? -gt 128 ] || sleep 0.2
            done
            """;

    /** The same loop in any POSIX shell, where there is no {@code bash}. */
    static final String SH_SCRIPT = """
            dir="$1"
            while :; do
              now=$(date +%s%3N)
            """ + KILL_PASSED + """
              sleep 0.2
            done
            """;

    /** The shell the supervisor runs in here, and its loop. */
    static final List<String> SHELL = Files.isExecutable(Path.of("/bin/bash"))
            ? List.of("/bin/bash", "-c", BASH_SCRIPT)
            : List.of("/bin/sh", "-c", SH_SCRIPT);

    private final Path dir;
    private final List<String> loop;
    private Process shell;

    Supervisor(Path dir) throws IOException {
        this(dir, SHELL);
    }

    /** {@code loop}: the shell and its script, {@link #SHELL} unless a test picks one. */
    Supervisor(Path dir, List<String> loop) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.loop = List.copyOf(loop);
    }

    /**
     * How long before the lease ends the supervisor kills: a poll of the shell, plus slack for the kill and for
     * clocks, and at most a quarter of the lease (between heartbeats the deadline must stay ahead of now).
     */
    static Duration margin(Duration lease) {
        Duration m = Duration.ofMillis(POLL_MS * 5);
        Duration quarter = lease.dividedBy(4);
        return m.compareTo(quarter) > 0 ? quarter : m;
    }

    /**
     * Sets (or moves) the deadline of the run {@code name}, whose binary leads process group {@code group} (null:
     * not started yet) and runs as {@code uid} (null: no sandbox).
     */
    synchronized void arm(String name, Long group, Integer uid, long deadlineMillis) throws IOException {
        ensureStarted();
        Path tmp = dir.resolve(name + ".tmp");
        Files.writeString(
                tmp,
                deadlineMillis + " " + (group == null ? "-" : group) + " " + (uid == null ? "-" : uid) + "\n",
                StandardCharsets.US_ASCII);
        Files.move(
                tmp,
                dir.resolve(name + ".deadline"),
                StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Moves an armed deadline. False, and nothing changes, if the run is not armed: over, or killed meanwhile (its
     * deadline passed).
     */
    synchronized boolean extend(String name, long group, Integer uid, long deadlineMillis) throws IOException {
        if (!Files.exists(dir.resolve(name + ".deadline"))) {
            return false;
        }
        arm(name, group, uid, deadlineMillis);
        return true;
    }

    /**
     * The run is over: no deadline any more. True if the supervisor killed it first. A kill the supervisor has
     * claimed is waited for (up to {@link #KILL_WAIT}): until it is done, the run's uid and group must not be given
     * to another run, which the kill would reach.
     */
    boolean disarm(String name) {
        try {
            synchronized (this) {
                Files.deleteIfExists(dir.resolve(name + ".deadline"));
            }
            Path killing = dir.resolve(name + ".killing");
            long until = System.nanoTime() + KILL_WAIT.toNanos();
            while (Files.exists(killing)) {
                if (System.nanoTime() - until > 0) {
                    LOG.log(Level.WARNING, "the supervisor's kill of " + name + " has not ended in " + KILL_WAIT);
                    return true;
                }
                Thread.sleep(5);
            }
            return Files.deleteIfExists(dir.resolve(name + ".killed"));
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot remove the deadline of " + name, e);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private void ensureStarted() throws IOException {
        if (shell != null && shell.isAlive()) {
            return;
        }
        // The parent-death signal follows the thread that starts the shell, not the JVM: started from a thread of
        // its own that lives exactly as long as the shell (it waits for it), never from a run's thread.
        CompletableFuture<Process> started = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("supervisor-" + dir.getFileName()).start(() -> {
            try {
                List<String> command = new ArrayList<>(List.of("setpriv", "--pdeathsig", "KILL", "--"));
                command.addAll(loop);
                command.addAll(List.of("punctual-supervisor", dir.toString()));
                Process p = ProcessRunner.spawn(new ProcessBuilder(command)
                        .redirectInput(ProcessBuilder.Redirect.PIPE)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.INHERIT));
                started.complete(p);
                p.waitFor();
            } catch (IOException | RuntimeException e) {
                started.completeExceptionally(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            shell = started.join();
        } catch (CompletionException e) {
            throw new IOException("cannot start the run supervisor", e.getCause());
        }
    }

    @Override
    public synchronized void close() {
        if (shell != null) {
            shell.destroyForcibly();
            shell = null;
        }
    }
}
