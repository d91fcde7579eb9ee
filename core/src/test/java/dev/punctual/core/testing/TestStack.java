package dev.punctual.core.testing;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.Metering;
import dev.punctual.core.infra.Provisioner;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.emulators.EmbeddedAws;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * For tests on the embedded emulators (core's integration tests, and other modules' through core's test jar): one
 * emulator set per JVM, shared by every test in it, and a fresh, isolated scheduler per test: each gets its own resource prefix, so its tables, queues and bucket are new and empty.
 */
public final class TestStack {
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private TestStack() {}

    /** The emulators every test of this JVM shares. */
    public static EmbeddedAws aws() {
        return EmbeddedAws.shared();
    }

    /**
     * Where the shared emulators are, for core's clients. Tests ask for {@link Metering}: several count the calls
     * a scenario makes, and a client carries the meter only if built once it was asked for.
     */
    public static AwsClients.Target target() {
        Metering.enable();
        EmbeddedAws a = aws();
        return AwsClients.Target.emulators(a.dynamodbEndpoint(), a.sqsEndpoint(), a.s3Endpoint());
    }

    /** Settings with a prefix no other test uses; the caller adjusts the rest. */
    public static Settings.Builder isolatedSettings() {
        int n = COUNTER.incrementAndGet();
        String prefix = "t" + ProcessHandle.current().pid() + "-" + n;
        return Settings.builder().prefix(prefix).bucket(prefix + "-artifacts");
    }

    /** A provisioned scheduler on the shared emulators. */
    public static Punctual create(Settings settings, Clock clock) {
        return create(settings, clock, RunNotices.NONE);
    }

    /** A provisioned scheduler on the shared emulators that publishes run outcomes to {@code notices}. */
    public static Punctual create(Settings settings, Clock clock, RunNotices notices) {
        AwsClients.Target t = target();
        Provisioner.provision(t, new Resources(settings));
        DynamoDbClient d = AwsClients.dynamo(t);
        SqsClient q = AwsClients.sqs(t);
        S3Client s = AwsClients.s3(t);
        S3Presigner p = AwsClients.presigner(t);
        return new Punctual(d, q, s, p, settings, clock, null, notices, Meters.inMemory());
    }
}
