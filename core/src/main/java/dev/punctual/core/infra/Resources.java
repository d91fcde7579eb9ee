package dev.punctual.core.infra;

import dev.punctual.core.config.Deployment;
import dev.punctual.core.config.Settings;
import dev.punctual.core.firing.Priority;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The single definition of every AWS resource the scheduler uses: table names, keys, indexes, TTL attribute,
 * queues and bucket. Repositories take their key names from here.
 */
public final class Resources {

    public static final String JOB_ID = "jobId";
    public static final String RUN_ID = "runId";
    public static final String BINARY_ID = "binaryId";
    public static final String OWNER = "owner";
    public static final String OWNER_SORT = "ownerSort";
    public static final String DUE_SHARD = "dueShard";
    public static final String DUE_SORT = "dueSort";
    public static final String EXPIRES_AT = "expiresAt";
    public static final String SWEEP_NAME = "name";
    /** Set only on DEAD runs ({@code <owner>#DEAD}, {@code <finishedAt fixed>#<jobId>#<runId>}): a sparse index. */
    public static final String OWNER_STATE = "ownerState";

    public static final String FINISHED_SORT = "finishedSort";
    /** Every run created since the index existed: {@code <owner>#<0-7>} by job ({@code RunSearch}). */
    public static final String OWNER_SHARD = "ownerShard";

    public static final String JOBS_BY_OWNER = "byOwner";
    public static final String BINARIES_BY_OWNER = "byOwner";
    /** A binary's registration time: the sort key of its owner's listing. */
    public static final String CREATED_AT = "createdAt";

    public static final String RUNS_BY_DUE = "byDue";
    public static final String RUNS_BY_OWNER_STATE = "byOwnerState";
    public static final String RUNS_BY_OWNER = "byOwner";

    /** Above {@link Settings#DEFAULT_MAX_ATTEMPTS_LIMIT} with room for receives that lose a claim. */
    public static final int MAX_RECEIVE_COUNT = 25;

    public static final int MESSAGE_RETENTION_SECONDS = 4 * 24 * 3600;

    private final Deployment deployment;
    /** The queues' visibility timeout: an executor's lease on a run is also its hold on the run's message. */
    private final Duration lease;

    public Resources(Settings settings) {
        this.deployment = settings.deployment();
        this.lease = settings.execution().lease();
    }

    public TableSpec jobs() {
        return new TableSpec(
                deployment.prefix() + "-jobs",
                JOB_ID,
                null,
                // Keys only: a job's every dispatch changes it (its pending run), which would otherwise be a
                // second write each time, for the listing alone.
                List.of(new TableSpec.IndexSpec(JOBS_BY_OWNER, OWNER, OWNER_SORT, true)),
                // Only idempotency keys carry it (IdempotencyRepository); jobs never expire.
                EXPIRES_AT);
    }

    public TableSpec runs() {
        return new TableSpec(
                deployment.prefix() + "-runs",
                JOB_ID,
                RUN_ID,
                List.of(
                        // Keys only: a run is written four or more times while in it (claim, launch, heartbeats),
                        // and each would be an index write too; the sweeper fetches the few items it acts on.
                        new TableSpec.IndexSpec(RUNS_BY_DUE, DUE_SHARD, DUE_SORT, true),
                        // Only DEAD runs are in it, and they are seldom written.
                        new TableSpec.IndexSpec(RUNS_BY_OWNER_STATE, OWNER_STATE, FINISHED_SORT, false),
                        // An owner's runs across jobs, newest due first. Keys only, on keys written once: a run's
                        // later writes cost it nothing.
                        new TableSpec.IndexSpec(RUNS_BY_OWNER, OWNER_SHARD, RUN_ID, true)),
                EXPIRES_AT);
    }

    public TableSpec binaries() {
        return new TableSpec(
                deployment.prefix() + "-binaries",
                BINARY_ID,
                null,
                // Listing an owner's binaries, newest first (to the second: within one, Instant's text may put
                // an exact second after its fractions), on attributes every binary has had from the start.
                // All attributes: a binary is written twice at most (registered, then marked uploaded).
                List.of(new TableSpec.IndexSpec(BINARIES_BY_OWNER, OWNER, CREATED_AT, false)),
                null);
    }

    public TableSpec sweeps() {
        return new TableSpec(deployment.prefix() + "-sweeps", SWEEP_NAME, null, List.of(), null);
    }

    public List<TableSpec> tables() {
        return List.of(jobs(), runs(), binaries(), sweeps());
    }

    /** The normal lane's run queue. */
    public QueueSpec runQueue() {
        return runQueue(Priority.NORMAL);
    }

    /**
     * The run queue of a lane and its dead-letter queue: {@code <prefix>-runs<suffix>} and
     * {@code <prefix>-runs<suffix>-dlq} ({@link Priority#queueSuffix}: none for normal, the queue there always was).
     */
    public QueueSpec runQueue(Priority lane) {
        return new QueueSpec(
                deployment.prefix() + "-runs" + lane.queueSuffix,
                deployment.prefix() + "-runs" + lane.queueSuffix + "-dlq",
                MAX_RECEIVE_COUNT,
                (int) lease.toSeconds(),
                MESSAGE_RETENTION_SECONDS);
    }

    /** Every lane's run queue, highest first. */
    public List<QueueSpec> runQueues() {
        return Arrays.stream(Priority.values()).map(this::runQueue).toList();
    }

    public String bucket() {
        return deployment.bucket();
    }
}
