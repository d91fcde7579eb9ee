package dev.punctual.core.exec;

import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.config.Settings;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.queue.RunQueues;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.store.Claims;
import dev.punctual.core.tenant.TenantSlots;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What an executor process is built from, and the three things it does with it: warm the store calls up
 * ({@link #prime}), make the worker that handles one message at a time ({@link #worker}) and start the pool that
 * feeds it ({@link #start}). The executor's shell is handed this, not the whole graph.
 */
public final class ExecutorFactory {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final Transactions tx;
    private final TenantSlots tenantSlots;
    private final RunQueues queues;
    private final ArtifactStore store;
    private final RunNotices notices;
    private final Meters meters;
    private final Settings settings;
    private final Clock clock;

    public ExecutorFactory(
            JobRepository jobs,
            RunRepository runs,
            Transactions tx,
            TenantSlots tenantSlots,
            RunQueues queues,
            ArtifactStore store,
            RunNotices notices,
            Meters meters,
            Settings settings,
            Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.tx = tx;
        this.tenantSlots = tenantSlots;
        this.queues = queues;
        this.store = store;
        this.notices = notices;
        this.meters = meters;
        this.settings = settings;
        this.clock = clock;
    }

    /** {@link Priming#prime}: {@code calls} store calls before the first receive, so their code is compiled. */
    public int prime(String executorId, int calls) {
        return Priming.prime(jobs, runs, clock, executorId, calls);
    }

    /** A worker that handles one message at a time; an executor process has one, shared by its pool threads. */
    public RunWorker worker(String executorId, Path workRoot, ScheduledExecutorService timer) {
        try {
            // The cache (every tenant's binaries) and the logs are the executor's alone: runs under their own
            // users (the sandbox) must not read or change them.
            Files.createDirectories(workRoot);
            Files.setPosixFilePermissions(workRoot, PosixFilePermissions.fromString("rwx------"));
            return worker(executorId, workRoot, timer, new BinaryCache(store, workRoot.resolve("cache")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private RunWorker worker(String executorId, Path workRoot, ScheduledExecutorService timer, BinaryCache cache) {
        AttemptRunner attempts = new AttemptRunner(
                runs,
                jobs,
                queues,
                store,
                cache,
                new ProcessRunner(
                        settings.storage().logCapBytes(),
                        settings.execution().killGrace(),
                        settings.sandbox().helper()),
                new Backoff(settings.runs().retryBase(), settings.runs().retryCap(), new SecureRandom()),
                settings,
                clock,
                executorId,
                workRoot.resolve("runs"),
                timer,
                new RunEvents(settings.publishing().jsonRunEvents(), notices, meters),
                meters);
        return new RunWorker(runs, jobs, new Claims(jobs, runs, tx, tenantSlots), queues, settings, clock, attempts);
    }

    /** A started executor pool: each lane long-polls {@code waitSeconds} when idle, as many messages as it has room for. */
    public ExecutorPool start(String executorId, Path workRoot, int waitSeconds) {
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(
                1, Thread.ofPlatform().daemon().name("heartbeat-" + executorId).factory());
        return new ExecutorPool(
                        worker(executorId, workRoot, timer),
                        queues,
                        settings.execution().concurrency(),
                        waitSeconds,
                        (int) settings.execution().lease().toSeconds(),
                        settings.execution().shutdownGrace())
                .start();
    }

    /** The normal lane's queue URL, for the start-up log line. */
    public String queueUrl() {
        return queues.lane(Priority.NORMAL).url();
    }

    /** host:pid plus a random suffix, so restarts on one host are told apart. */
    public static String defaultExecutorId() {
        return ManagementFactory.getRuntimeMXBean().getName() + "-" + Integer.toHexString(new SecureRandom().nextInt());
    }
}
