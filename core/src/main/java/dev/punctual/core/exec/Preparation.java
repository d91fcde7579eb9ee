package dev.punctual.core.exec;

import dev.punctual.core.job.Job;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.run.Run;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The first phase of an attempt: everything its start costs, paid before its instant. The binary is fetched and
 * verified, the sandbox opened, the run's deadline given to the {@link Supervisor}, and its process chain started up
 * to a gate, where the binary waits for its release. What it got to is undone by {@link #stop} and {@link #close},
 * whichever phase the attempt ended in.
 */
final class Preparation {
    private static final System.Logger LOG = System.getLogger(AttemptRunner.class.getName());

    private final Sandbox sandbox;
    private final BinaryCache cache;
    private final ProcessRunner runner;
    private final Supervisor supervisor;
    private final Duration lease;
    private final Clock clock;
    private final Path workRoot;

    Preparation(
            Sandbox sandbox,
            BinaryCache cache,
            ProcessRunner runner,
            Supervisor supervisor,
            Duration lease,
            Clock clock,
            Path workRoot) {
        this.sandbox = sandbox;
        this.cache = cache;
        this.runner = runner;
        this.supervisor = supervisor;
        this.lease = lease;
        this.clock = clock;
        this.workRoot = workRoot;
    }

    /**
     * What an attempt holds, filled in as it is prepared, so that whatever phase it got to is undone: its sandbox
     * ({@code lease}, null without one), its work directory and log, its process held at the gate, and the name its
     * deadline is armed under (null: not armed).
     */
    static final class Prepared {
        private Sandbox.Lease lease;
        private Path workDir;
        private Path logFile;
        private ProcessRunner.Handle handle;
        private String supervised;

        Sandbox.Lease lease() {
            return lease;
        }

        Path workDir() {
            return workDir;
        }

        Path logFile() {
            return logFile;
        }

        ProcessRunner.Handle handle() {
            return handle;
        }

        Integer uid() {
            return lease == null ? null : lease.uid();
        }
    }

    /**
     * Readies {@code run} of {@code job} (its overrides applied), whose claim holds it until {@code leaseEnd}, into
     * {@code p}; what it got to before a failure is in {@code p}, for {@link #stop} and {@link #close}.
     */
    void prepare(
            Prepared p,
            Run run,
            Job job,
            RunLimits limits,
            Map<String, String> secrets,
            Instant leaseEnd,
            StartTiming timing)
            throws IOException {
        Path binary;
        if (sandbox.active()) {
            // The executable copy, made from the cache (hashed there and as copied) once per binary.
            p.lease = sandbox.open(
                    sandbox.executable(
                            job.owner(), job.binarySha256(), () -> cache.fetch(job.owner(), job.binarySha256())),
                    limits.diskMb());
            p.workDir = p.lease.dir();
            binary = p.lease.binary();
        } else {
            binary = cache.fetch(job.owner(), job.binarySha256());
            p.workDir = Files.createTempDirectory(Files.createDirectories(workRoot), "run-");
        }
        timing.mark("sandbox ready");
        // The log is the executor's, out of the binary's reach when it runs as its own user.
        p.logFile = Files.createDirectories(workRoot).resolve(p.workDir.getFileName() + ".log");
        Map<String, String> env = LaunchCheck.environment(job, secrets, run);
        String name = name(run);
        // Armed before the process starts, by its uid: an executor frozen right after the start (before it knows
        // the binary's process group) is still covered. (Found by the fault suite: an executor frozen within
        // milliseconds of starting four binaries had armed none, and all four outlived its lease.) Without a
        // sandbox there is no uid, and the deadline covers the run only once its group is known.
        try {
            supervisor.arm(name, null, p.uid(), deadline(leaseEnd));
            p.supervised = name;
        } catch (IOException e) {
            // Self-fencing still holds the run; only a frozen JVM escapes it.
            LOG.log(Level.WARNING, "run " + name + " has no supervisor", e);
        }
        // Everything a start costs (the processes that set up its session, namespace, limits and user) is paid here,
        // before the instant and the launch: the binary itself waits at a gate until its release. An executor that
        // dies before the release takes the gated process with it (its parent-death signal): the binary never ran,
        // and the attempt, not launched, is given back.
        p.handle = runner.startGated(
                binary,
                job.args(),
                env,
                p.workDir,
                p.logFile,
                p.lease == null
                        ? new ProcessRunner.Confinement(null, limits, false)
                        : sandbox.confinement(p.lease, limits));
        timing.mark("spawned");
    }

    /**
     * Stops what {@link #prepare} started, once the attempt's binary has ended ({@code letThrough}) or was never let
     * through its gate: a process still held there is ended unstarted (its exit is the gate's), and the deadline
     * disarmed. The sandbox stays until {@link #close}.
     */
    void stop(Prepared p, boolean letThrough) {
        if (p.handle != null && !letThrough) {
            p.handle.kill(RunWorker.NOT_LET_START);
            try {
                p.handle.await(Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (p.supervised != null) {
            supervisor.disarm(p.supervised);
        }
    }

    /** Closes the attempt's sandbox, once {@link #stop}ped and nothing reads its directory any more. */
    void close(Prepared p) {
        if (p.lease != null) {
            sandbox.close(p.lease);
        }
    }

    /**
     * Gives the supervisor the binary's process group, once started, and the lease's end as renewed; false when the
     * deadline passed before this (the JVM was frozen in between), so the binary must not run on.
     */
    boolean extend(Prepared p, long group, Instant leaseEnd) throws IOException {
        return p.supervised == null || supervisor.extend(p.supervised, group, p.uid(), deadline(leaseEnd));
    }

    /** Whether the supervisor killed the run (its deadline passed); disarms it either way. */
    boolean disarm(Prepared p) {
        return p.supervised != null && supervisor.disarm(p.supervised);
    }

    static String name(Run run) {
        return run.jobId() + "." + run.runId() + "." + run.attempt();
    }

    /** The wall-clock instant (ms) at which the supervisor kills a run whose lease ends at {@code leaseEnd}. */
    private long deadline(Instant leaseEnd) {
        // The lease is in this executor's clock; the supervisor reads the wall clock.
        Duration left = Duration.between(clock.instant(), leaseEnd).minus(Supervisor.margin(lease));
        return System.currentTimeMillis() + left.toMillis();
    }
}
