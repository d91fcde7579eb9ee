package dev.punctual.wiring;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.config.SettingsSource;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.notify.EventBusNotices;
import dev.punctual.core.notify.RunNotices;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;
import org.eclipse.microprofile.config.Config;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Builds core's object graph from the Quarkiverse SDK clients and the {@code punctual.*} configuration: core's
 * {@link SettingsSource} reads the keys that are Settings, {@link PunctualConfig} maps the rest.
 */
public class CoreProducer {

    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }

    /**
     * Core's settings, read by core's one mapping ({@link SettingsSource}) from this application's configuration:
     * {@code getOptionalValue} finds {@code PUNCTUAL_RETRY_BASE} for {@code punctual.retry-base} as a mapping would.
     * Made at start-up, so that a bad value stops the start naming its key, not the first request that needs it.
     */
    @Produces
    @Singleton
    @Startup
    Settings settings(Config config) {
        return SettingsSource.settings(property -> config.getOptionalValue(property, String.class));
    }

    @Produces
    @Singleton
    Punctual punctual(
            DynamoDbClient dynamo,
            SqsClient sqs,
            S3Client s3,
            Settings settings,
            Clock clock,
            PunctualConfig c,
            Meters meters) {
        return new Punctual(
                dynamo,
                sqs,
                s3,
                AwsClients.presignerFromEnvironment(c.s3PathStyle().orElse(false)),
                settings,
                clock,
                c.queueUrl().orElse(null),
                notices(c),
                meters);
    }

    /** Run outcomes go to the configured EventBridge bus; with none, nowhere (the default). */
    static RunNotices notices(PunctualConfig c) {
        return c.eventsBusName()
                .filter(name -> !name.isBlank())
                .<RunNotices>map(name -> new EventBusNotices(
                        AwsClients.eventBridgeFromEnvironment(),
                        name,
                        c.eventsSource().orElse(DEFAULT_SOURCE)))
                .orElse(RunNotices.NONE);
    }

    /** The events' source when none is configured. */
    static final String DEFAULT_SOURCE = "punctual";
}
