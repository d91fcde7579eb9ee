package dev.punctual.core.infra;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Plain SDK clients for code that runs outside Quarkus (tests, the local launcher) and the S3 presigner for
 * everyone. Endpoints come from the standard {@code AWS_ENDPOINT_URL_<SERVICE>} / {@code AWS_ENDPOINT_URL}
 * variables (or {@code aws.endpointUrl<Service>} properties), so one setting points every component at AWS,
 * LocalStack or the embedded emulators.
 */
public final class AwsClients {
    private AwsClients() {}

    /** Endpoints and credentials of an emulator set; {@code null} endpoints mean "resolve as the SDK does". */
    public record Target(URI dynamodb, URI sqs, URI s3, Region region, AwsCredentialsProvider credentials) {
        public static Target emulators(URI dynamodb, URI sqs, URI s3) {
            return new Target(
                    dynamodb,
                    sqs,
                    s3,
                    Region.US_EAST_1,
                    StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")));
        }
    }

    public static DynamoDbClient dynamo(Target t) {
        var b = DynamoDbClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(Metering::addIfAsked)
                .region(t.region())
                .credentialsProvider(t.credentials());
        return (t.dynamodb() == null ? b : b.endpointOverride(t.dynamodb())).build();
    }

    public static SqsClient sqs(Target t) {
        var b = SqsClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(Metering::addIfAsked)
                .region(t.region())
                .credentialsProvider(t.credentials());
        return (t.sqs() == null ? b : b.endpointOverride(t.sqs())).build();
    }

    public static S3Client s3(Target t) {
        var b = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(Metering::addIfAsked)
                .region(t.region())
                .credentialsProvider(t.credentials())
                .forcePathStyle(t.s3() != null);
        return (t.s3() == null ? b : b.endpointOverride(t.s3())).build();
    }

    public static S3Presigner presigner(Target t) {
        var b = S3Presigner.builder()
                .region(t.region())
                .credentialsProvider(t.credentials())
                .serviceConfiguration(S3Configuration.builder()
                        .pathStyleAccessEnabled(t.s3() != null)
                        .build());
        return (t.s3() == null ? b : b.endpointOverride(t.s3())).build();
    }

    /**
     * An EventBridge client for the deployables, which have no Quarkus extension for it: endpoint, region and
     * credentials as the SDK resolves them ({@code AWS_ENDPOINT_URL_EVENTBRIDGE} or {@code AWS_ENDPOINT_URL}).
     */
    public static EventBridgeClient eventBridgeFromEnvironment() {
        return EventBridgeClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(Metering::addIfAsked)
                .build();
    }

    /** An EventBridge client at {@code endpoint} (tests), with {@code t}'s region and credentials. */
    public static EventBridgeClient eventBridge(Target t, URI endpoint) {
        return EventBridgeClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(Metering::addIfAsked)
                .region(t.region())
                .credentialsProvider(t.credentials())
                .endpointOverride(endpoint)
                .build();
    }

    /** A presigner for the deployables: endpoint from the environment, region and credentials from the SDK chain. */
    public static S3Presigner presignerFromEnvironment(boolean pathStyle) {
        var b = S3Presigner.builder()
                .credentialsProvider(DefaultCredentialsProvider.builder().build())
                .serviceConfiguration(S3Configuration.builder()
                        .pathStyleAccessEnabled(pathStyle)
                        .build());
        endpointFromEnvironment("s3").ifPresent(b::endpointOverride);
        return b.build();
    }

    /** The endpoint configured for {@code service} ("dynamodb", "sqs", "s3"), as the SDK itself would read it. */
    public static Optional<URI> endpointFromEnvironment(String service) {
        String cap = service.substring(0, 1).toUpperCase(Locale.ROOT) + service.substring(1);
        for (String v : new String[] {
            System.getProperty("aws.endpointUrl" + cap),
            System.getenv("AWS_ENDPOINT_URL_" + service.toUpperCase(Locale.ROOT)),
            System.getProperty("aws.endpointUrl"),
            System.getenv("AWS_ENDPOINT_URL")
        }) {
            if (v != null && !v.isBlank()) {
                return Optional.of(URI.create(v));
            }
        }
        return Optional.empty();
    }
}
