package dev.punctual.wiring;

import dev.punctual.core.infra.Metering;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;

/**
 * The SDK clients, built from the builders the Quarkiverse extensions configure ({@code quarkus.<service>.*}: HTTP
 * client, endpoint, credentials), with {@link Metering} added only in a process that asked for it
 * ({@code PUNCTUAL_METERING_FILE}, the benchmark's processes). The extensions' own configuration could name an
 * interceptor only at build time, for every process alike.
 */
public class ClientProducer {

    @Produces
    @Singleton
    DynamoDbClient dynamo(DynamoDbClientBuilder builder) {
        return metered(builder, Metering.asked()).build();
    }

    @Produces
    @Singleton
    SqsClient sqs(SqsClientBuilder builder) {
        return metered(builder, Metering.asked()).build();
    }

    @Produces
    @Singleton
    S3Client s3(S3ClientBuilder builder) {
        return metered(builder, Metering.asked()).build();
    }

    void close(@Disposes DynamoDbClient c) {
        c.close();
    }

    void close(@Disposes SqsClient c) {
        c.close();
    }

    void close(@Disposes S3Client c) {
        c.close();
    }

    /**
     * The builder with its own override configuration (the extension's: retries, timeouts, interceptors) kept, and
     * the meter added if {@code asked}.
     */
    static <B extends AwsClientBuilder<B, ?>> B metered(B builder, boolean asked) {
        if (!asked) {
            return builder;
        }
        return builder.overrideConfiguration(builder.overrideConfiguration().toBuilder()
                .addExecutionInterceptor(Metering.create())
                .build());
    }
}
