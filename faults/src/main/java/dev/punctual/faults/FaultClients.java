package dev.punctual.faults;

import dev.punctual.core.infra.AwsClients;
import java.util.List;
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
        return DynamoDbClient.builder()
                .httpClient(http)
                .endpointOverride(t.dynamodb())
                .region(t.region())
                .credentialsProvider(t.credentials())
                .overrideConfiguration(o -> o.executionInterceptors(interceptors))
                .build();
    }

    static SqsClient sqs(AwsClients.Target t, List<ExecutionInterceptor> interceptors) {
        return SqsClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .endpointOverride(t.sqs())
                .region(t.region())
                .credentialsProvider(t.credentials())
                .overrideConfiguration(o -> o.executionInterceptors(interceptors))
                .build();
    }

    static S3Client s3(AwsClients.Target t, List<ExecutionInterceptor> interceptors) {
        return S3Client.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .endpointOverride(t.s3())
                .region(t.region())
                .credentialsProvider(t.credentials())
                .forcePathStyle(true)
                .overrideConfiguration(o -> o.executionInterceptors(interceptors))
                .build();
    }
}
