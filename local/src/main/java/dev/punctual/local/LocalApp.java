package dev.punctual.local;

import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.ExecutorFactory;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.exec.Sandbox;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.sweep.Sweeper;
import dev.punctual.emulators.EmbeddedAws;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/** The running local system: the API (served by Quarkus), the sweeper on a timer, and executor pools. */
public class LocalApp implements QuarkusApplication {
    private static final Logger LOG = Logger.getLogger(LocalApp.class);
    /** The ready line scripts and tests wait for; keep its shape stable. */
    static final String READY = "Punctual local is ready:";

    static final int LONG_POLL_SECONDS = 20;
    /** How long a stopping runner waits for a sweep under way before it interrupts it. */
    static final int SWEEP_STOP_SECONDS = 10;
    /** How long a stopping runner waits for the run outcomes it has not published yet (with a bus configured). */
    static final Duration NOTICES_GRACE = Duration.ofSeconds(5);

    private final Sweeper sweeper;
    private final ExecutorFactory executors;
    private final RunNotices notices;
    private final Settings settings;
    private final int configuredPort;

    @Inject
    LocalApp(
            Sweeper sweeper,
            ExecutorFactory executors,
            RunNotices notices,
            Settings settings,
            @ConfigProperty(name = "quarkus.http.port") int configuredPort) {
        this.sweeper = sweeper;
        this.executors = executors;
        this.notices = notices;
        this.settings = settings;
        this.configuredPort = configuredPort;
    }

    @Override
    public int run(String... args) throws Exception {
        LocalMain.LocalOptions o = LocalMain.options;
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("sweeper").factory());
        ScheduledFuture<?> sweeping = o.sweepPeriod() == null
                ? null
                : timer.scheduleAtFixedRate(this::sweep, 0, o.sweepPeriod().toMillis(), TimeUnit.MILLISECONDS);
        Path work =
                o.dataDir() != null ? o.dataDir().resolve("executor") : Files.createTempDirectory("punctual-local-");
        List<ExecutorPool> pools = new ArrayList<>();
        for (int i = 0; i < o.executors(); i++) {
            pools.add(executors.start(
                    "local-" + ProcessHandle.current().pid() + "-" + i,
                    work.resolve("executor-" + i),
                    LONG_POLL_SECONDS));
        }
        int port = actualPort();
        EmbeddedAws aws = LocalMain.aws;
        String emulators = aws == null
                ? "external AWS endpoints"
                : "DynamoDB " + aws.dynamodbEndpoint() + " | SQS " + aws.sqsEndpoint() + " | S3 " + aws.s3Endpoint();
        String isolation = isolation(settings.sandbox());
        System.out.println(READY + " API http://127.0.0.1:" + port + " | " + emulators + " | prefix "
                + settings.deployment().prefix() + " | executors " + o.executors() + " | auth "
                + (LocalMain.auth == null ? "off (one tenant, 'local')" : "on (Bearer JWT; bin/local-token SUBJECT)")
                + " | runs " + isolation);
        System.out.flush();
        Quarkus.waitForExit();
        // No new sweep from here; one under way finishes (or gives up) before the pools close.
        if (sweeping != null) {
            sweeping.cancel(false);
        }
        timer.shutdown();
        if (!timer.awaitTermination(SWEEP_STOP_SECONDS, TimeUnit.SECONDS)) {
            timer.shutdownNow();
        }
        pools.forEach(ExecutorPool::close);
        notices.close(NOTICES_GRACE);
        return 0;
    }

    /** How runs are held in, for the ready line; says loudly on stderr when they are not isolated at all. */
    static String isolation(SandboxConfig sandbox) {
        if (sandbox.enabled() && Sandbox.isRoot()) {
            return "isolated (a user of its own each, "
                    + (sandbox.network() == SandboxConfig.Network.NONE ? "no network" : "the host's network") + ")";
        }
        String why = sandbox.enabled()
                ? "this runner is not root, and only root can give each run a user of its own"
                : "punctual.sandbox=false";
        System.err.println("""

                ************************************************************************************************
                WARNING: runs are NOT isolated: %s.
                Every binary runs as this runner's own user: it can read this process's memory and environment,
                other runs' files and logs, and reach the local emulators. Run only binaries you trust, or start
                bin/run-local as root (e.g. sudo -E bin/run-local) to give every run its own user, limits and
                no network.
                ************************************************************************************************
                """.formatted(why));
        return "NOT isolated (" + why + ")";
    }

    private int actualPort() {
        // With port 0, Quarkus publishes the port it bound as quarkus.http.port once the server is up.
        return org.eclipse.microprofile.config.ConfigProvider.getConfig()
                .getOptionalValue("quarkus.http.port", Integer.class)
                .orElse(configuredPort);
    }

    private void sweep() {
        try {
            var r = sweeper.sweep();
            if (r.sent() > 0 || r.failed() > 0) {
                LOG.infof(
                        "sweep: %d due, %d sent, %d failed, watermark %s",
                        r.due(), r.sent(), r.failed(), r.watermark());
            }
        } catch (RuntimeException e) {
            LOG.warn("sweep failed; the next one retries from the watermark", e);
        }
    }
}
