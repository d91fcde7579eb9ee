package dev.punctual.core.exec;

import dev.punctual.core.config.SandboxConfig;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;

/**
 * The sandbox's uids ({@code uidBase}, {@code uidCount} of its {@link SandboxConfig}): a run gets one that no live
 * process uses ({@link UidProcesses}), and it is given out again only once every process of it is killed.
 *
 * <p>A uid this JVM has taken stays its own (its lock held) once its run ended with no process left: the next run
 * gets it without scanning {@code /proc} again, since no process of it can have started in between (only this
 * JVM starts processes as it). A scan of every process per run was the largest cost of the executor's own code.
 */
final class UidPool {
    private static final System.Logger LOG = System.getLogger(UidPool.class.getName());

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

    private final SandboxConfig config;
    /** The uids' lock files, in a directory that is root's alone. */
    private final Path locks;

    UidPool(SandboxConfig config, Path locks) {
        this.config = config;
        this.locks = locks;
    }

    int take() throws IOException {
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
                boolean free = UidProcesses.pidsOf(uid).isEmpty();
                if (!free) {
                    // Nobody holds this uid's lock, yet processes of it live: an executor died (kill -9 on a
                    // plain host) and its run's own children outlived it. Every executor on this host shares these
                    // locks (the same sandbox-dir), so they are nobody's run now.
                    LOG.log(
                            Level.WARNING,
                            "uid " + uid + " has processes left by an executor that died: killing " + "them");
                    free = killAll(uid);
                    SharedTemp.deleteLeftovers(uid, null);
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
    void release(int uid) {
        IDLE.push(uid);
    }

    /**
     * Kills every process whose real, effective or saved uid is {@code uid}, until a scan finds none (true), or
     * gives up after 20 rounds (false: something of it is left).
     */
    static boolean killAll(int uid) {
        for (int round = 0; round < 20; round++) {
            List<Long> pids = UidProcesses.pidsOf(uid);
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
        boolean none = UidProcesses.pidsOf(uid).isEmpty();
        if (none) {
            NONE_LEFT.add(uid);
        }
        return none;
    }

    /** No process of {@code uid} is left: the launcher killed them all and saw none left ({@link Launcher}). */
    static void noneLeft(int uid) {
        NONE_LEFT.add(uid);
    }

    /** Whether a scan since {@code uid} was last handed out found no process of it ({@link #killAll}, {@link
     * #noneLeft}). */
    static boolean noneLeftKnown(int uid) {
        return NONE_LEFT.contains(uid);
    }
}
