package dev.punctual.executor;

import dev.punctual.core.Punctual;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.wiring.PunctualConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.file.Path;
import org.jboss.logging.Logger;

/**
 * Starts the executor pool with the application and drains it on shutdown. ShutdownEvent fires before the SDK
 * clients are closed, so runs finishing during the grace period can still record their results.
 */
@ApplicationScoped
public class ExecutorLifecycle {
    private static final Logger LOG = Logger.getLogger(ExecutorLifecycle.class);
    /** SQS long-poll wait, the maximum SQS allows: fewer empty receives, and a message is seen as it arrives. */
    static final int LONG_POLL_SECONDS = 20;

    @Inject
    Punctual punctual;

    @Inject
    PunctualConfig config;

    private ExecutorPool pool;

    void start(@Observes StartupEvent e) {
        String id = config.executorId().orElseGet(Punctual::defaultExecutorId);
        Path work = Path.of(config.workDir().orElse(System.getProperty("java.io.tmpdir") + "/punctual-executor"));
        pool = punctual.startExecutor(id, work, LONG_POLL_SECONDS);
        LOG.infof(
                "executor %s polling %s with %d slots",
                id, punctual.queue.url(), punctual.settings.executorConcurrency());
    }

    void stop(@Observes ShutdownEvent e) {
        if (pool != null) {
            LOG.info("draining: no new runs; running ones get the shutdown grace period");
            pool.close();
        }
    }
}
