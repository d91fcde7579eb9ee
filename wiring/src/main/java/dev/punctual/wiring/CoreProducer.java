package dev.punctual.wiring;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.config.Settings;
import dev.punctual.core.config.WebhookMode;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.limits.Quotas;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.limits.RunningLimits;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.notify.EventBusNotices;
import dev.punctual.core.notify.RunNotices;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.time.Clock;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/** Builds core's object graph from the Quarkiverse SDK clients and {@link PunctualConfig}. */
public class CoreProducer {

    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }

    @Produces
    @Singleton
    Settings settings(PunctualConfig c) {
        Settings.Builder b = Settings.builder();
        c.prefix().ifPresent(b::prefix);
        c.bucket().ifPresent(b::bucket);
        c.shards().ifPresent(b::shards);
        c.dispatchConcurrency().ifPresent(b::dispatchConcurrency);
        c.lookahead().ifPresent(b::lookahead);
        c.settle().ifPresent(b::settle);
        c.requeueAfter().ifPresent(b::requeueAfter);
        c.lease().ifPresent(b::lease);
        c.heartbeat().ifPresent(b::heartbeat);
        c.retryBase().ifPresent(b::retryBase);
        c.retryCap().ifPresent(b::retryCap);
        c.minInterval().ifPresent(b::minInterval);
        c.executorConcurrency().ifPresent(b::executorConcurrency);
        c.logCapBytes().ifPresent(b::logCapBytes);
        c.inlineLogBytes().ifPresent(b::inlineLogBytes);
        c.logChunkInterval().ifPresent(b::logChunkInterval);
        c.shutdownGrace().ifPresent(b::shutdownGrace);
        c.retention().ifPresent(b::retention);
        c.emfMetrics().ifPresent(b::emfMetrics);
        c.jsonRunEvents().ifPresent(b::jsonRunEvents);
        c.webhooks().map(WebhookMode::parse).ifPresent(b::webhooks);
        Quotas d = Quotas.DEFAULTS;
        b.quotas(new Quotas(
                c.quotaJobs().orElse(d.jobs()),
                c.quotaRunsPerMinute().orElse(d.runsPerMinute()),
                c.quotaTriggersPerMinute().orElse(d.triggersPerMinute()),
                c.quotaBackfillPerDay().orElse(d.backfillPerDay())));
        b.running(new RunningLimits(
                c.quotaRunning().orElse(0),
                RunningLimits.parseTenants(c.quotaRunningTenants().orElse(null))));
        SandboxConfig sd = SandboxConfig.DEFAULT;
        b.sandbox(new SandboxConfig(
                c.sandbox().orElse(sd.enabled()),
                c.sandboxUidBase().orElse(sd.uidBase()),
                c.sandboxUids().orElse(sd.uidCount()),
                c.sandboxDir().map(Path::of).orElse(sd.dir()),
                c.sandboxNetwork().map(SandboxConfig.Network::parse).orElse(sd.network()),
                c.sandboxDisk().map(SandboxConfig.Disk::parse).orElse(sd.disk()),
                c.sandboxHelper().map(Path::of).orElse(sd.helper())));
        RunLimits l = RunLimits.DEFAULT_MAXIMA;
        b.limits(new RunLimits(
                c.limitsProcesses().orElse(l.processes()),
                c.limitsMemoryMb().orElse(l.memoryMb()),
                c.limitsOpenFiles().orElse(l.openFiles()),
                c.limitsFileSizeMb().orElse(l.fileSizeMb()),
                c.limitsCpuSeconds().orElse(l.cpuSeconds()),
                c.limitsDiskMb().orElse(l.diskMb())));
        return b.build();
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
