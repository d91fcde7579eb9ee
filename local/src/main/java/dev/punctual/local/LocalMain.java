package dev.punctual.local;

import dev.punctual.core.config.Deployment;
import dev.punctual.core.config.Settings;
import dev.punctual.core.config.SettingsSource;
import dev.punctual.core.exec.Sandbox;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.Provisioner;
import dev.punctual.core.infra.Resources;
import dev.punctual.emulators.EmbeddedAws;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/run-local}: starts the embedded emulators (unless {@code --external}), creates the resources from
 * the one definition in core, then boots the API, a sweeper timer and executor pools in this process.
 */
@QuarkusMain
@Command(
        name = "punctual-local",
        mixinStandardHelpOptions = true,
        subcommands = TokenCommand.class,
        description = "Runs the whole scheduler in one process on embedded AWS emulators.")
public class LocalMain implements Callable<Integer> {

    @Option(
            names = "--port",
            defaultValue = "8080",
            description = "API port (0: any free port). Default: ${DEFAULT-VALUE}")
    int port;

    @Option(names = "--data-dir", description = "Keep DynamoDB and S3 state here across restarts (default: in memory).")
    Path dataDir;

    @Option(names = "--dynamodb-port", defaultValue = "8000", description = "Default: ${DEFAULT-VALUE}")
    int dynamoPort;

    @Option(names = "--sqs-port", defaultValue = "9324", description = "Default: ${DEFAULT-VALUE}")
    int sqsPort;

    @Option(names = "--s3-port", defaultValue = "9090", description = "Default: ${DEFAULT-VALUE}")
    int s3Port;

    @Option(
            names = "--executors",
            defaultValue = "1",
            description =
                    "Executor pools in this process (0: none; start them as separate processes). Default: ${DEFAULT-VALUE}")
    int executors;

    @Option(
            names = "--sweep-period",
            defaultValue = "PT60S",
            description =
                    "How often the sweeper runs (EventBridge fires it every minute in AWS). Default: ${DEFAULT-VALUE}")
    Duration sweepPeriod;

    @Option(names = "--no-sweeper", description = "Do not run the sweeper timer in this process.")
    boolean noSweeper;

    @Option(
            names = "--external",
            description = "Start no emulators: use AWS_ENDPOINT_URL_* / the SDK's defaults (LocalStack, or AWS).")
    boolean external;

    @Option(
            names = "--prefix",
            defaultValue = Deployment.DEFAULT_PREFIX,
            description = "Resource name prefix. Default: ${DEFAULT-VALUE}")
    String prefix;

    @Option(
            names = "--auth",
            description = "Require Authorization: Bearer <JWT> on every API request, verified "
                    + "against this runner's key; each token's issuer and subject is a tenant (bin/local-token SUBJECT "
                    + "prints one). Default: off, every caller is the single tenant 'local'.")
    boolean authRequired;

    @Option(
            names = "--auth-key",
            description = "The signing key for --auth and bin/local-token, created on first "
                    + "use. Default: ~/.punctual/local-auth-key.jwk")
    Path authKey;

    static volatile LocalOptions options;
    /** The token verifier when started with {@code --auth}; null means no authentication. */
    static volatile LocalAuth auth;

    static volatile EmbeddedAws aws;

    public static void main(String... args) {
        // The API checks URIs itself (api/HttpEdge), answering a problem naming the parameter; Quarkus's own check,
        // made before any route, would answer a bare 400.
        System.setProperty("vertx.disableURIValidation", "true");
        int rc = new CommandLine(new LocalMain()).execute(args);
        if (rc != 0) {
            System.exit(rc);
        }
    }

    @Override
    public Integer call() throws Exception {
        System.setProperty("punctual.prefix", prefix);
        // What the provisioned resources depend on (the queues' visibility timeout is the lease), read by the mapping
        // the application reads: Quarkus's configuration is not up yet. A bad value stops here, naming its key.
        Settings settings = SettingsSource.settings(LocalMain::configured);
        // The emulators take any credentials: a run that could reach them could rewrite every tenant's jobs. Runs
        // get no network of their own here unless asked otherwise (taking root, as the sandbox itself does).
        if (System.getProperty("punctual.sandbox-network") == null
                && System.getenv("PUNCTUAL_SANDBOX_NETWORK") == null
                && Sandbox.isRoot()) {
            System.setProperty("punctual.sandbox-network", "none");
        }
        System.setProperty("quarkus.http.port", Integer.toString(port));
        if (!external) {
            aws = EmbeddedAws.start(dataDir, dynamoPort, sqsPort, s3Port);
            aws.quarkusConfig().forEach(System::setProperty);
            aws.exportToSystemProperties();
            Provisioner.provision(
                    AwsClients.Target.emulators(aws.dynamodbEndpoint(), aws.sqsEndpoint(), aws.s3Endpoint()),
                    new Resources(settings));
        }
        if (authRequired) {
            auth = LocalAuth.loadOrCreate(authKey != null ? authKey : LocalAuth.DEFAULT_KEY);
        }
        options = new LocalOptions(executors, noSweeper ? null : sweepPeriod, dataDir);
        try {
            Quarkus.run(LocalApp.class, (code, failure) -> {
                if (failure != null) {
                    failure.printStackTrace();
                }
                stopEmulators();
                System.exit(code);
            });
        } finally {
            stopEmulators();
        }
        return 0;
    }

    /** A setting from a system property or its environment variable ({@code punctual.lease}: PUNCTUAL_LEASE). */
    static java.util.Optional<String> configured(String property) {
        String v = System.getProperty(property);
        if (v == null) {
            v = System.getenv(SettingsSource.environmentName(property));
        }
        return java.util.Optional.ofNullable(v).filter(s -> !s.isBlank());
    }

    static void stopEmulators() {
        EmbeddedAws a = aws;
        aws = null;
        if (a != null) {
            try {
                a.close();
            } catch (Exception ignored) {
                // exiting anyway
            }
        }
    }

    /** What the launcher passes to the running application. */
    record LocalOptions(int executors, Duration sweepPeriod, Path dataDir) {}
}
