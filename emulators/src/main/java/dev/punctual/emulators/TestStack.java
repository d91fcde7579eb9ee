package dev.punctual.emulators;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.Resources;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * One emulator set per JVM, shared by every test in it (starting them costs seconds), and a fresh, isolated
 * scheduler per test: each gets its own resource prefix, so its tables, queues and bucket are new and empty.
 */
public final class TestStack {
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static EmbeddedAws aws;

    private TestStack() {}

    public static synchronized EmbeddedAws aws() {
        if (aws == null) {
            try {
                aws = EmbeddedAws.startInMemory();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the embedded emulators", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    aws.close();
                } catch (Exception ignored) {
                    // the JVM is exiting
                }
            }));
        }
        return aws;
    }

    /** Settings with a prefix no other test uses; the caller adjusts the rest. */
    public static Settings.Builder isolatedSettings() {
        int n = COUNTER.incrementAndGet();
        String prefix = "t" + ProcessHandle.current().pid() + "-" + n;
        return Settings.builder().prefix(prefix).bucket(prefix + "-artifacts");
    }

    /** A provisioned scheduler on the shared emulators. */
    public static Punctual create(Settings settings, Clock clock) {
        EmbeddedAws a = aws();
        a.provision(new Resources(settings));
        AwsClients.Target t = a.target();
        DynamoDbClient d = AwsClients.dynamo(t);
        SqsClient q = AwsClients.sqs(t);
        S3Client s = AwsClients.s3(t);
        S3Presigner p = AwsClients.presigner(t);
        return new Punctual(d, q, s, p, settings, clock, null);
    }
}
