package dev.punctual.executor;

import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.ExecutorFactory;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.wiring.PunctualConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Starts the executor pool with the application and drains it on shutdown. ShutdownEvent fires before the SDK
 * clients are closed, so runs finishing during the grace period can still record their results.
 */
@ApplicationScoped
public class ExecutorLifecycle {
    private static final Logger LOG = Logger.getLogger(ExecutorLifecycle.class);
    /**
     * SQS long-poll wait. A message is seen as it arrives whatever the wait; the wait bounds how long a stop of an
     * idle executor takes, since a receive under way cannot be cut short safely (a connection closed under a long
     * poll can still be handed messages, which then stay invisible for their whole visibility timeout and start
     * that late). At 20 s (SQS's maximum) an idle executor took about 29 s to stop; at 5 s it polls 12 times a
     * minute when idle instead of 3, about $0.20 a month more per executor.
     */
    static final int LONG_POLL_SECONDS = 5;

    private final ExecutorFactory executors;
    private final RunNotices notices;
    private final Meters meters;
    private final Settings settings;
    private final PunctualConfig config;

    @Inject
    ExecutorLifecycle(
            ExecutorFactory executors, RunNotices notices, Meters meters, Settings settings, PunctualConfig config) {
        this.executors = executors;
        this.notices = notices;
        this.meters = meters;
        this.settings = settings;
        this.config = config;
    }

    /**
     * The file, in the executor's work directory, whose modification time says the executor is healthy: touched
     * every {@link #HEALTH_BEAT} while its pool takes runs ({@link ExecutorPool#healthy}). The ECS task's
     * {@code healthCheck} reads its age (infra/terraform/ecs.tf), so a container whose pool stopped or got stuck, or
     * whose JVM froze, is replaced; there is no HTTP server to ask.
     */
    public static final String HEALTH_FILE = "healthy";

    public static final Duration HEALTH_BEAT = Duration.ofSeconds(10);

    /** How often the meters are published (EMF lines on AWS): CloudWatch's standard resolution. */
    static final Duration METERS_PERIOD = Duration.ofMinutes(1);

    /**
     * Store calls made before the first run ({@code punctual.executor-prime-calls}): {@code bin/bench calls} has a
     * call cost the executor's JVM 700–850 µs of CPU after 340 calls and 270–350 after 3,000. 1,500 take a few
     * seconds of CPU at start (and, one after another at 5–10 ms a call on AWS, 8–15 s before the first receive,
     * within the ECS health check's start period), and cost about 0.002 USD on AWS at on-demand list prices: 2,500 strong reads of nothing
     * (1 read unit each, 0.125 USD a million) and 2,000 claims that lose (1 write unit each, 0.625 USD a million).
     */
    static final int PRIME_CALLS = 1500;

    private ExecutorPool pool;
    private ScheduledExecutorService health;

    void start(@Observes StartupEvent e) {
        String id = config.executorId().orElseGet(ExecutorFactory::defaultExecutorId);
        Path work = workDir(config);
        // Before the first receive: the calls' code is compiled by the time a burst's runs come.
        executors.prime(id, config.executorPrimeCalls().orElse(PRIME_CALLS));
        pool = executors.start(id, work, LONG_POLL_SECONDS);
        Path healthFile = work.resolve(HEALTH_FILE);
        health = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("health").factory());
        health.scheduleWithFixedDelay(() -> beat(healthFile), 0, HEALTH_BEAT.toMillis(), TimeUnit.MILLISECONDS);
        health.scheduleAtFixedRate(
                meters::flush, METERS_PERIOD.toMillis(), METERS_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        LOG.infof(
                "executor %s polling %s with %d slots",
                id, executors.queueUrl(), settings.execution().concurrency());
    }

    /** The executor's work directory: {@code punctual.work-dir}, else one under the JVM's temporary directory. */
    static Path workDir(PunctualConfig config) {
        return Path.of(config.workDir().orElse(System.getProperty("java.io.tmpdir") + "/punctual-executor"));
    }

    private void beat(Path healthFile) {
        if (!pool.healthy()) {
            LOG.warnf("not healthy: the pool's receiver has stopped or is stuck; %s is not touched", healthFile);
            return;
        }
        try {
            if (!Files.exists(healthFile)) {
                Files.createDirectories(healthFile.getParent());
                Files.createFile(healthFile);
            }
            Files.setLastModifiedTime(healthFile, FileTime.from(Instant.now()));
        } catch (IOException e) {
            LOG.warnf(e, "cannot touch %s", healthFile);
        }
    }

    void stop(@Observes ShutdownEvent e) {
        if (health != null) {
            health.shutdownNow();
        }
        if (pool != null) {
            LOG.info("draining: no new runs; running ones get the shutdown grace period");
            pool.close();
        }
        // What the last minute recorded, the drained runs' outcomes included.
        meters.flush();
        try {
            // Outcomes of the runs drained above are still to be published; what cannot go in time is logged.
            notices.close(NOTICES_GRACE);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    /** How long a stopping executor waits for the run outcomes it has not published yet. */
    static final Duration NOTICES_GRACE = Duration.ofSeconds(5);
}
