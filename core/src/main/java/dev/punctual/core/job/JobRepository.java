package dev.punctual.core.job;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;
import static dev.punctual.core.job.JobItems.ACTIVE_RUN;
import static dev.punctual.core.job.JobItems.ARGS;
import static dev.punctual.core.job.JobItems.BINARY_SHA;
import static dev.punctual.core.job.JobItems.ENV;
import static dev.punctual.core.job.JobItems.FIRING;
import static dev.punctual.core.job.JobItems.LIMITS;
import static dev.punctual.core.job.JobItems.MAX_ATTEMPTS;
import static dev.punctual.core.job.JobItems.NAME;
import static dev.punctual.core.job.JobItems.NEXT_RUN_AT;
import static dev.punctual.core.job.JobItems.NO_RETRY_CODES;
import static dev.punctual.core.job.JobItems.PAUSED_AT;
import static dev.punctual.core.job.JobItems.PENDING;
import static dev.punctual.core.job.JobItems.SCHEDULE;
import static dev.punctual.core.job.JobItems.SECRET_NAMES;
import static dev.punctual.core.job.JobItems.STATE;
import static dev.punctual.core.job.JobItems.TIMEOUT;
import static dev.punctual.core.job.JobItems.UPDATED_AT;
import static dev.punctual.core.job.JobItems.VERSION;

import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * Every key, condition and update expression of the jobs table. Writes that take part in a transaction with the
 * runs table are returned as {@link TransactWriteItem}s for the caller to combine.
 */
public final class JobRepository {
    /** The attribute of a job's secrets item ({@code jobId = <job>#secrets}) that holds the values. */
    private static final String SECRET_VALUES = "values";

    private final DynamoDbClient dynamo;
    private final TableSpec table;

    public JobRepository(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.jobs();
    }

    public String tableName() {
        return table.name();
    }

    /** Creates the job; fails the transaction if the id is taken. */
    public TransactWriteItem insert(Job job) {
        Map<String, AttributeValue> item = JobItems.toItem(job);
        return TransactWriteItem.builder()
                .put(p -> p.tableName(table.name())
                        .item(item)
                        .conditionExpression("attribute_not_exists(#id)")
                        .expressionAttributeNames(Map.of("#id", Resources.JOB_ID)))
                .build();
    }

    public Optional<Job> get(String jobId) {
        var item = dynamo.getItem(b -> b.tableName(table.name()).key(key(jobId)).consistentRead(true))
                .item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(JobItems.fromItem(item));
    }

    /** One page of an owner's jobs, oldest first. */
    public PageOfJobs listByOwner(String owner, int limit, Map<String, AttributeValue> startKey) {
        QueryResponse r = dynamo.query(b -> b.tableName(table.name())
                .indexName(Resources.JOBS_BY_OWNER)
                .keyConditionExpression("#o = :o")
                .expressionAttributeNames(Map.of("#o", Resources.OWNER))
                .expressionAttributeValues(Map.of(":o", s(owner)))
                .limit(limit)
                .exclusiveStartKey(startKey == null || startKey.isEmpty() ? null : startKey));
        return new PageOfJobs(
                r.items().stream().map(JobItems::fromItem).toList(),
                r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null);
    }

    public record PageOfJobs(List<Job> items, Map<String, AttributeValue> lastKey) {}

    /**
     * Moves the job's pending run from {@code currentRunId} to the next occurrence, or to none (the job completes).
     * Only one writer can win: the condition pins the run it replaces, so a second sweeper racing on the same
     * occurrence loses here, and a deleted job gets no new runs.
     */
    public TransactWriteItem advancePending(
            String jobId, String currentRunId, String nextRunId, Instant nextRunAt, Instant now) {
        Map<String, String> names =
                new HashMap<>(Map.of("#p", PENDING, "#st", STATE, "#u", UPDATED_AT, "#n", NEXT_RUN_AT));
        Map<String, AttributeValue> values = new HashMap<>(
                Map.of(":cur", s(currentRunId), ":active", s(JobState.ACTIVE.name()), ":now", instant(now)));
        String update;
        if (nextRunId != null) {
            update = "SET #p = :next, #n = :nextAt, #u = :now";
            values.put(":next", s(nextRunId));
            values.put(":nextAt", instant(nextRunAt));
        } else {
            update = "SET #st = :completed, #u = :now REMOVE #p, #n";
            values.put(":completed", s(JobState.COMPLETED.name()));
        }
        return conditionalUpdate(jobId, update, "#p = :cur AND #st = :active", names, values);
    }

    /**
     * Marks the job DELETED, provided its pending run is still {@code expectedPending} (null: it has none), so the
     * cancel of that run written in the same transaction is the right one.
     */
    public TransactWriteItem markDeleted(String jobId, String owner, String expectedPending, Instant now) {
        Map<String, String> names = new HashMap<>(Map.of(
                "#st",
                STATE,
                "#v",
                VERSION,
                "#u",
                UPDATED_AT,
                "#p",
                PENDING,
                "#n",
                NEXT_RUN_AT,
                "#o",
                Resources.OWNER));
        Map<String, AttributeValue> values = new HashMap<>(
                Map.of(":deleted", s(JobState.DELETED.name()), ":one", n(1), ":now", instant(now), ":owner", s(owner)));
        String cond = "#o = :owner AND #st <> :deleted AND " + pendingIs(expectedPending, values);
        return conditionalUpdate(
                jobId, "SET #st = :deleted, #v = #v + :one, #u = :now REMOVE #p, #n", cond, names, values);
    }

    /**
     * Pauses an ACTIVE job, provided its pending run is still {@code expectedPending} (null: it has none), so the
     * cancel of that run written in the same transaction is the right one. Records {@code pausedAt}, from which
     * resume counts the missed occurrences, and keeps {@code nextRunAt} (the cancelled run's due time, which a
     * lagging sweep may have left before {@code pausedAt}) so resume counts from that one if it is earlier.
     */
    public TransactWriteItem markPaused(String jobId, String owner, String expectedPending, Instant now) {
        Map<String, String> names = new HashMap<>(Map.of(
                "#st", STATE, "#v", VERSION, "#u", UPDATED_AT, "#p", PENDING, "#o", Resources.OWNER, "#pa", PAUSED_AT));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":paused",
                s(JobState.PAUSED.name()),
                ":active",
                s(JobState.ACTIVE.name()),
                ":one",
                n(1),
                ":now",
                instant(now),
                ":owner",
                s(owner)));
        String cond = "#o = :owner AND #st = :active AND " + pendingIs(expectedPending, values);
        return conditionalUpdate(
                jobId, "SET #st = :paused, #pa = :now, #v = #v + :one, #u = :now REMOVE #p", cond, names, values);
    }

    /**
     * Resumes a job paused at {@code pausedAt} (the condition pins that pause, so two resumes cannot both win):
     * ACTIVE with {@code nextRunId} as its pending run, or COMPLETED when the schedule has no further occurrence.
     */
    public TransactWriteItem markResumed(
            String jobId, String owner, Instant pausedAt, String nextRunId, Instant nextRunAt, Instant now) {
        Map<String, String> names = new HashMap<>(Map.of(
                "#st",
                STATE,
                "#v",
                VERSION,
                "#u",
                UPDATED_AT,
                "#p",
                PENDING,
                "#n",
                NEXT_RUN_AT,
                "#o",
                Resources.OWNER,
                "#pa",
                PAUSED_AT));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":paused",
                s(JobState.PAUSED.name()),
                ":one",
                n(1),
                ":now",
                instant(now),
                ":owner",
                s(owner),
                ":pausedAt",
                instant(pausedAt)));
        String update;
        if (nextRunId != null) {
            update = "SET #st = :to, #p = :next, #n = :nextAt, #v = #v + :one, #u = :now REMOVE #pa";
            values.put(":to", s(JobState.ACTIVE.name()));
            values.put(":next", s(nextRunId));
            values.put(":nextAt", instant(nextRunAt));
        } else {
            update = "SET #st = :to, #v = #v + :one, #u = :now REMOVE #pa, #p, #n";
            values.put(":to", s(JobState.COMPLETED.name()));
        }
        return conditionalUpdate(jobId, update, "#o = :owner AND #st = :paused AND #pa = :pausedAt", names, values);
    }

    /**
     * The condition that the job's pending run is still {@code expectedPending} (null: it has none), i.e. the one the
     * caller read, so the run it cancels in the same transaction is the right one.
     */
    private static String pendingIs(String expectedPending, Map<String, AttributeValue> values) {
        if (expectedPending == null) {
            return "attribute_not_exists(#p)";
        }
        values.put(":pending", s(expectedPending));
        return "#p = :pending";
    }

    /**
     * Replaces the job's definition (a {@code PUT}): provided it is still at {@code expectedVersion}, not DELETED,
     * and its pending run is still {@code expectedPending} (null: none), so the pending run replaced in the same
     * transaction is the right one. {@code job} carries the new definition, state, version, pending run and
     * {@code nextRunAt}; its id, owner and creation time are not written.
     */
    public TransactWriteItem replace(Job job, long expectedVersion, String expectedPending) {
        Map<String, String> names = new HashMap<>(Map.of(
                "#name",
                NAME,
                "#b",
                Resources.BINARY_ID,
                "#sha",
                BINARY_SHA,
                "#args",
                ARGS,
                "#env",
                ENV,
                "#sch",
                SCHEDULE,
                "#to",
                TIMEOUT,
                "#ma",
                MAX_ATTEMPTS,
                "#nr",
                NO_RETRY_CODES,
                "#f",
                FIRING));
        names.put("#sn", SECRET_NAMES);
        names.put("#lim", LIMITS);
        names.putAll(Map.of(
                "#st",
                STATE,
                "#v",
                VERSION,
                "#u",
                UPDATED_AT,
                "#p",
                PENDING,
                "#n",
                NEXT_RUN_AT,
                "#o",
                Resources.OWNER));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":name",
                s(job.name()),
                ":b",
                s(job.binaryId()),
                ":sha",
                s(job.binarySha256()),
                ":args",
                Items.strings(job.args()),
                ":env",
                Items.stringMap(job.env()),
                ":sch",
                JobItems.scheduleValue(job.schedule()),
                ":to",
                n(job.timeoutSeconds()),
                ":ma",
                n(job.maxAttempts()),
                ":nr",
                JobItems.exitCodesValue(job.nonRetryableExitCodes()),
                ":f",
                JobItems.firingValue(job.firing())));
        values.put(":sn", Items.strings(job.secretNames()));
        values.put(":lim", JobItems.limitsValue(job.limits()));
        values.putAll(Map.of(
                ":st",
                s(job.state().name()),
                ":v",
                n(job.version()),
                ":expected",
                n(expectedVersion),
                ":now",
                instant(job.updatedAt()),
                ":deleted",
                s(JobState.DELETED.name()),
                ":owner",
                s(job.owner())));
        StringBuilder update = new StringBuilder("SET #name = :name, #b = :b, #sha = :sha, #args = :args,"
                + " #env = :env, #sch = :sch, #to = :to, #ma = :ma, #nr = :nr, #f = :f, #sn = :sn, #lim = :lim, #st = :st, #v = :v,"
                + " #u = :now");
        if (job.pendingRunId() != null) {
            update.append(", #p = :next, #n = :nextAt");
            values.put(":next", s(job.pendingRunId()));
            values.put(":nextAt", instant(job.nextRunAt()));
        } else {
            update.append(" REMOVE #p, #n");
        }
        String cond = "#o = :owner AND #v = :expected AND #st <> :deleted AND " + pendingIs(expectedPending, values);
        return conditionalUpdate(job.id(), update.toString(), cond, names, values);
    }

    /**
     * The claim's check on the job of a run that must not overlap another: the job may run (as
     * {@link #conditionRunnable}) and its active run is still {@code seenActive} (null: none), the one whose state
     * the same transaction checks; it becomes {@code runId}. Two runs claimed at once both expect the same active
     * run, so only one can win. The job as it was comes back on failure.
     */
    public TransactWriteItem takeActiveRun(String jobId, String seenActive, String runId) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":active", s(JobState.ACTIVE.name()), ":completed", s(JobState.COMPLETED.name()), ":run", s(runId)));
        String seen;
        if (seenActive == null) {
            seen = "attribute_not_exists(#ar)";
        } else {
            seen = "#ar = :seen";
            values.put(":seen", s(seenActive));
        }
        return conditionalUpdate(
                jobId,
                "SET #ar = :run",
                "attribute_exists(#id) AND #st IN (:active, :completed) AND " + seen,
                Map.of("#id", Resources.JOB_ID, "#st", STATE, "#ar", ACTIVE_RUN),
                values);
    }

    /**
     * A condition that the job exists and may run (ACTIVE or COMPLETED: not PAUSED, not DELETED): part of every
     * claim, so a run that was already sitting in the queue when its job was deleted or paused never starts. The
     * job as it was comes back on failure, so the caller can tell which.
     */
    public TransactWriteItem conditionRunnable(String jobId) {
        return TransactWriteItem.builder()
                .conditionCheck(c -> c.tableName(table.name())
                        .key(key(jobId))
                        .conditionExpression("attribute_exists(#id) AND #st IN (:active, :completed)")
                        .expressionAttributeNames(Map.of("#id", Resources.JOB_ID, "#st", STATE))
                        .expressionAttributeValues(Map.of(
                                ":active", s(JobState.ACTIVE.name()), ":completed", s(JobState.COMPLETED.name())))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build();
    }

    /** The state of a job's item as a lost {@link #conditionRunnable} brought it back; empty: no job. */
    public static Optional<JobState> stateOf(Map<String, AttributeValue> item) {
        return Optional.ofNullable(item == null ? null : Items.str(item, STATE)).map(JobState::valueOf);
    }

    /**
     * One conditional update of a job's item, for a transaction. On a lost condition the item as it was comes back
     * ({@link dev.punctual.core.infra.Transactions.Outcome#oldItem}), so a caller can tell why it lost.
     */
    private TransactWriteItem conditionalUpdate(
            String jobId,
            String update,
            String condition,
            Map<String, String> names,
            Map<String, AttributeValue> values) {
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId))
                        .updateExpression(update)
                        .conditionExpression(condition)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build();
    }

    private static Map<String, AttributeValue> key(String jobId) {
        return Map.of(Resources.JOB_ID, s(jobId));
    }

    /*
     * Secrets: a job's secret values live in an item of their own, jobId = "<job>#secrets". It has no owner
     * attribute, so the byOwner index (which projects ALL) never holds them, and no listing or job read returns
     * them; only the executor reads them, by key, when it starts a run. The job item keeps the names.
     */

    private static Map<String, AttributeValue> secretsKey(String jobId) {
        return key(jobId + "#secrets");
    }

    /**
     * Sets the job's secret values, in the transaction that writes the job. An empty map leaves an item without
     * values: a deleted or replaced job keeps none. (A put, not a delete, so the API needs no DeleteItem.)
     */
    public TransactWriteItem putSecrets(String jobId, Map<String, String> values) {
        Map<String, AttributeValue> item = new HashMap<>(secretsKey(jobId));
        if (!values.isEmpty()) {
            item.put(SECRET_VALUES, Items.stringMap(values));
        }
        return TransactWriteItem.builder()
                .put(p -> p.tableName(table.name()).item(item))
                .build();
    }

    /** The job's secret values (empty when it has none). */
    public Map<String, String> secrets(String jobId) {
        var item = dynamo.getItem(
                        b -> b.tableName(table.name()).key(secretsKey(jobId)).consistentRead(true))
                .item();
        return item == null || !item.containsKey(SECRET_VALUES) ? Map.of() : Items.stringMap(item, SECRET_VALUES);
    }
}
