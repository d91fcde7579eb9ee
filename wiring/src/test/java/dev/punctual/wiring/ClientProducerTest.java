package dev.punctual.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.infra.Metering;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/** The meter is in a client's pipeline only where the process asked for it; what the extension configured stays. */
class ClientProducerTest {
    /** Stands for an interceptor the extension's configuration put on the builder. */
    static final class Configured implements ExecutionInterceptor {}

    private static DynamoDbClientBuilder builder() {
        return DynamoDbClient.builder()
                .region(Region.US_EAST_1)
                .credentialsProvider(AnonymousCredentialsProvider.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(new Configured()));
    }

    private static List<Class<?>> interceptors(DynamoDbClient client) {
        return client.serviceClientConfiguration().overrideConfiguration().executionInterceptors().stream()
                .<Class<?>>map(Object::getClass)
                .toList();
    }

    @Test
    void aProcessThatDidNotAskHasNoMeterInItsClients() {
        try (DynamoDbClient client = ClientProducer.metered(builder(), false).build()) {
            assertThat(interceptors(client)).contains(Configured.class).doesNotContain(Metering.class);
        }
    }

    @Test
    void aProcessThatAskedHasTheMeterBesideWhatTheExtensionConfigured() {
        try (DynamoDbClient client = ClientProducer.metered(builder(), true).build()) {
            assertThat(interceptors(client)).contains(Configured.class, Metering.class);
        }
    }
}
