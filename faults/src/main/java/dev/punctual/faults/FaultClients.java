package dev.punctual.faults;

import dev.punctual.core.infra.AwsClients;
import java.net.URI;
import java.util.List;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * SDK clients on the emulators with a place for faults: {@link AwsClients} builds the healthy ones, these take an HTTP
 * client that may answer calls itself ({@link FaultyHttpClient}) and interceptors that fail, crash or freeze around
 * chosen requests.
 */
final class FaultClients {
    private FaultClients() {}

    static DynamoDbClient dynamo(AwsClients.Target t, SdkHttpClient http, List<ExecutionInterceptor> interceptors) {
        return build(DynamoDbClient.builder(), t.dynamodb(), t, http, interceptors);
    }

    static SqsClient sqs(AwsClients.Target t, List<ExecutionInterceptor> interceptors) {
        return build(SqsClient.builder(), t.sqs(), t, UrlConnectionHttpClient.create(), interceptors);
    }

    static S3Client s3(AwsClients.Target t, List<ExecutionInterceptor> interceptors) {
        return build(
                S3Client.builder().forcePathStyle(true), t.s3(), t, UrlConnectionHttpClient.create(), interceptors);
    }

    /** What every client here shares, whichever service it is for: the emulator's endpoint, its HTTP client, faults. */
    private static <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C build(
            B builder, URI endpoint, AwsClients.Target t, SdkHttpClient http, List<ExecutionInterceptor> interceptors) {
        return builder.httpClient(http)
                .endpointOverride(endpoint)
                .region(t.region())
                .credentialsProvider(t.credentials())
                .overrideConfiguration(o -> o.executionInterceptors(interceptors))
                .build();
    }
}
