package dev.punctual.core;

import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.binary.BinaryRepository;
import dev.punctual.core.config.Settings;
import dev.punctual.core.config.WebhookMode;
import dev.punctual.core.dispatch.Dispatcher;
import dev.punctual.core.exec.ExecutorFactory;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.exec.RunWorker;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.notify.WebhookNotices;
import dev.punctual.core.notify.Webhooks;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.queue.DeadLetterQueue;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.queue.RunQueues;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunSearch;
import dev.punctual.core.run.WatchRepository;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.service.BinaryService;
import dev.punctual.core.service.DeadLetterService;
import dev.punctual.core.service.IdempotentCreation;
import dev.punctual.core.service.JobBackfill;
import dev.punctual.core.service.JobCreation;
import dev.punctual.core.service.JobDeletion;
import dev.punctual.core.service.JobLifecycle;
import dev.punctual.core.service.JobService;
import dev.punctual.core.service.JobStarts;
import dev.punctual.core.service.JobStops;
import dev.punctual.core.service.JobUpdate;
import dev.punctual.core.service.JobValidator;
import dev.punctual.core.service.OwnedJobs;
import dev.punctual.core.service.RunLogs;
import dev.punctual.core.service.RunsAcrossJobs;
import dev.punctual.core.store.TableDispatchStore;
import dev.punctual.core.sweep.Sweeper;
import dev.punctual.core.sweep.WatchChecks;
import dev.punctual.core.sweep.WatermarkRepository;
import dev.punctual.core.tenant.IdempotencyRepository;
import dev.punctual.core.tenant.TenantSlots;
import dev.punctual.core.tenant.UsageRepository;
import dev.punctual.core.time.TimeBuckets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The scheduler's object graph, built from three SDK clients, a presigner, the settings and a clock. Each
 * deployable builds one and uses the part it needs; tests build one per emulator set.
 */
public final class Punctual {
    public final Settings settings;
    public final Clock clock;
    public final Resources resources;
    public final TimeBuckets buckets;
    public final JobRepository jobs;
    public final RunRepository runs;
    public final WatchRepository watches;
    public final BinaryRepository binaryRepository;
    public final UsageRepository usage;
    /** Tenants' running slots (their running limits). */
    public final TenantSlots tenantSlots;

    public final WatermarkRepository watermarks;
    public final Transactions tx;
    /** The normal lane's queue (the one every run went to before lanes). */
    public final RunQueue queue;
    /** Every lane's queue. */
    public final RunQueues queues;

    public final ArtifactStore store;
    public final Schedules schedules;
    public final RunPlanner planner;
    public final Dispatcher dispatcher;
    public final Sweeper sweeper;
    public final BinaryService binaries;
    public final JobService jobService;
    public final DeadLetterService deadLetters;
    public final RunsAcrossJobs runsAcrossJobs;
    public final JobLifecycle lifecycle;
    public final JobBackfill backfills;
    public final JobDeletion deletions;
    /** What an executor process starts from. */
    public final ExecutorFactory executors;
    /** Where run outcomes are published (executors and the sweeper publish; the API does not). */
    public final RunNotices notices;

    /** The wait before a webhook post's second try (the third waits four times as long). */
    static final Duration WEBHOOK_BACKOFF = Duration.ofSeconds(1);

    /** What the executors and the sweeper record ({@link Meters}). */
    public final Meters meters;

    /**
     * For tests, the fault suite and the bench: the queues found by name, no publishing ({@link RunNotices#NONE}),
     * meters kept in memory only ({@link Meters#inMemory}).
     */
    public Punctual(
            DynamoDbClient dynamo, SqsClient sqs, S3Client s3, S3Presigner presigner, Settings settings, Clock clock) {
        this(dynamo, sqs, s3, presigner, settings, clock, null, RunNotices.NONE, Meters.inMemory());
    }

    public Punctual(
            DynamoDbClient dynamo,
            SqsClient sqs,
            S3Client s3,
            S3Presigner presigner,
            Settings settings,
            Clock clock,
            String queueUrl,
            RunNotices bus,
            Meters meters) {
        this.settings = settings;
        this.meters = meters;
        this.clock = clock;
        this.resources = new Resources(settings);
        this.buckets = new TimeBuckets(settings.deployment().shards());
        this.jobs = new JobRepository(dynamo, resources);
        // Jobs' webhooks are posted from wherever outcomes are published, beside the bus.
        this.notices = settings.publishing().webhooks() == WebhookMode.OFF
                ? bus
                : new WebhookNotices(
                        bus, new Webhooks(jobs, clock, settings.publishing().webhooks(), WEBHOOK_BACKOFF));
        this.runs = new RunRepository(dynamo, resources, buckets, settings);
        this.watches = new WatchRepository(dynamo, resources, buckets);
        this.binaryRepository = new BinaryRepository(dynamo, resources);
        this.usage = new UsageRepository(dynamo, resources);
        this.tenantSlots = new TenantSlots(dynamo, resources);
        this.watermarks = new WatermarkRepository(dynamo, resources);
        this.tx = new Transactions(dynamo);
        this.queues = new RunQueues(
                sqs,
                resources,
                queueUrl,
                RunQueue.deleteLinger(
                        settings.execution().lease(), settings.execution().heartbeat()));
        this.queue = queues.lane(Priority.NORMAL);
        this.store = new ArtifactStore(s3, presigner, resources.bucket());
        this.schedules = new Schedules(settings.runs().minInterval());
        this.planner = new RunPlanner(new SecureRandom());
        this.dispatcher = new Dispatcher(
                new TableDispatchStore(jobs, runs, tx),
                queues,
                schedules,
                clock,
                planner,
                this.notices,
                settings.sweep().dispatchConcurrency(),
                settings.sweep().requeueAfter());
        this.sweeper = new Sweeper(
                runs,
                watermarks,
                dispatcher,
                buckets,
                settings.sweep(),
                clock,
                Arrays.stream(Priority.values())
                        .map(lane -> new DeadLetterQueue(sqs, resources.runQueue(lane), lane))
                        .toList(),
                queues,
                meters,
                new WatchChecks(jobs, runs, watches, schedules, this.notices));
        this.binaries =
                new BinaryService(binaryRepository, store, settings.storage().uploadUrlTtl(), clock);
        OwnedJobs ownedJobs = new OwnedJobs(jobs, runs, schedules, clock);
        JobStarts starts =
                new JobStarts(watches, schedules, dispatcher, settings.sweep().lookahead());
        JobStops stops = new JobStops(runs, clock);
        JobValidator validator = new JobValidator(
                binaries,
                schedules,
                settings.runs(),
                settings.limits(),
                settings.publishing().webhooks());
        this.jobService = new JobService(
                jobs,
                runs,
                schedules,
                ownedJobs,
                validator,
                new JobCreation(
                        jobs,
                        runs,
                        watches,
                        usage,
                        dispatcher,
                        planner,
                        starts,
                        settings.quotas(),
                        settings.sweep().lookahead()),
                new JobUpdate(
                        jobs,
                        runs,
                        watches,
                        usage,
                        tx,
                        schedules,
                        planner,
                        ownedJobs,
                        starts,
                        validator,
                        settings.quotas(),
                        clock),
                new IdempotentCreation(new IdempotencyRepository(dynamo, resources), jobs, clock),
                new RunLogs(ownedJobs, store, settings.storage().logChunkInterval(), clock),
                clock);
        this.deletions = new JobDeletion(jobs, watches, usage, tx, schedules, ownedJobs, stops, clock);
        this.deadLetters = new DeadLetterService(jobs, runs, queues, clock);
        this.runsAcrossJobs = new RunsAcrossJobs(jobs, new RunSearch(dynamo, resources), deadLetters, clock);
        this.lifecycle = new JobLifecycle(
                jobs, runs, usage, tx, schedules, planner, ownedJobs, starts, stops, settings.quotas(), clock);
        this.backfills = new JobBackfill(jobs, runs, usage, tx, schedules, ownedJobs, starts, settings.quotas(), clock);
        this.executors =
                new ExecutorFactory(jobs, runs, tx, tenantSlots, queues, store, this.notices, meters, settings, clock);
    }

    /** {@link ExecutorFactory#worker}. */
    public RunWorker worker(String executorId, Path workRoot, ScheduledExecutorService timer) {
        return executors.worker(executorId, workRoot, timer);
    }

    /** {@link ExecutorFactory#start}. */
    public ExecutorPool startExecutor(String executorId, Path workRoot, int waitSeconds) {
        return executors.start(executorId, workRoot, waitSeconds);
    }
}
