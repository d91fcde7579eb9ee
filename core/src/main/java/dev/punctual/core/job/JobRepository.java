package dev.punctual.core.job;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;
import static dev.punctual.core.job.JobItems.STATE;

import dev.punctual.core.infra.BatchReads;
import dev.punctual.core.infra.BatchWrites;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.PageKey;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import dev.punctual.core.infra.Transactions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The jobs table's protocol: every read and conditional write of a job's item, named for what it does. Writes that
 * take part in a transaction with the runs table are returned as {@link Transactions.Write}s for the caller to
 * combine. Beside it in this package: the clauses and placeholders its expressions share ({@link JobExpressions}),
 * the job's secret items ({@link JobSecrets}) and the item's attributes ({@link JobItems}).
 */
public final class JobRepository {
    private final DynamoDbClient dynamo;
    private final TableSpec table;
    private final JobSecrets secrets;

    public JobRepository(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.jobs();
        this.secrets = new JobSecrets(dynamo, table);
    }

    public String tableName() {
        return table.name();
    }

    /** Creates the job; fails the transaction if the id is taken. */
    public Transactions.Write insert(Job job) {
        Map<String, AttributeValue> item = JobItems.toItem(job);
        return new Transactions.Write(TransactWriteItem.builder()
                .put(p -> p.tableName(table.name())
                        .item(item)
                        .conditionExpression("attribute_not_exists(#id)")
                        .expressionAttributeNames(Map.of("#id", Resources.JOB_ID)))
                .build());
    }

    /**
     * Writes new jobs (fresh ids) with their secrets, at a plain write's price: the secrets first, so a job is never
     * seen without them. Their runs are written before them ({@code JobService}).
     */
    public void insertAll(
            List<Job> jobs, Map<String, Map<String, String>> secretsByJob, Map<String, String> webhookSecrets) {
        List<Transactions.Write> apart = new ArrayList<>();
        secretsByJob.forEach((id, values) -> apart.add(putSecrets(id, values)));
        webhookSecrets.forEach((id, secret) -> apart.add(putWebhookSecret(id, secret)));
        if (!apart.isEmpty()) {
            BatchWrites.putNew(dynamo::batchWriteItem, table.name(), apart);
        }
        BatchWrites.putNew(
                dynamo::batchWriteItem,
                table.name(),
                jobs.stream().map(this::insert).toList());
    }

    /** Removes jobs written by {@link #insertAll} (and their secrets), whose creation is being undone. */
    public void deleteNew(List<String> jobIds) {
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        jobIds.forEach(id -> {
            keys.add(key(id));
            keys.add(JobSecrets.secretsKey(id));
            keys.add(JobSecrets.webhookKey(id));
        });
        BatchWrites.delete(dynamo::batchWriteItem, table.name(), keys);
    }

    public Optional<Job> get(String jobId) {
        return get(jobId, true);
    }

    /**
     * {@link #get(String)}, eventually consistent unless {@code consistent}: half the price, for a reader whose
     * decision a conditional write checks anyway (it may miss a change of the last second or so).
     */
    public Optional<Job> get(String jobId, boolean consistent) {
        var item = dynamo.getItem(b -> b.tableName(table.name()).key(key(jobId)).consistentRead(consistent))
                .item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(JobItems.fromItem(item));
    }

    /** The most jobs {@link #getAll} reads in one call. */
    public static final int MAX_BATCH_READ = BatchReads.MAX_KEYS;

    /** The jobs of {@code jobIds} found, by id, read strongly: {@link #get}'s read of many jobs at once. */
    public Map<String, Job> getAll(List<String> jobIds) {
        Map<String, Job> out = new HashMap<>();
        BatchReads.get(
                        dynamo::batchGetItem,
                        table.name(),
                        jobIds.stream().map(JobRepository::key).toList(),
                        true)
                .forEach(item -> {
                    Job j = JobItems.fromItem(item);
                    out.put(j.id(), j);
                });
        return out;
    }

    /**
     * What a cursor of {@link #listByOwner} may hold for {@code owner} (the attributes of the key a page ends at, each
     * with what its value must satisfy), {@code jobId} checking the job id: a cursor comes back from the client.
     */
    public static Map<String, Predicate<String>> ownerCursor(String owner, Predicate<String> jobId) {
        return Map.of(Resources.JOB_ID, jobId, Resources.OWNER, owner::equals, Resources.OWNER_SORT, sort -> true);
    }

    /** One page of an owner's jobs, oldest first. */
    public PageOfJobs listByOwner(String owner, int limit, PageKey startKey) {
        QueryResponse r = dynamo.query(b -> b.tableName(table.name())
                .indexName(Resources.JOBS_BY_OWNER)
                .keyConditionExpression("#o = :o")
                .expressionAttributeNames(Map.of("#o", Resources.OWNER))
                .expressionAttributeValues(Map.of(":o", s(owner)))
                .limit(limit)
                .exclusiveStartKey(PageKey.startOf(startKey)));
        // The index holds keys only: the page's jobs are read by key, in the index's order.
        List<Map<String, AttributeValue>> keys =
                r.items().stream().map(e -> key(Items.str(e, Resources.JOB_ID))).toList();
        return new PageOfJobs(
                BatchReads.get(dynamo::batchGetItem, table.name(), keys).stream()
                        .map(JobItems::fromItem)
                        .toList(),
                PageKey.after(r));
    }

    public record PageOfJobs(List<Job> items, PageKey lastKey) {}

    /**
     * Moves the job's pending run from {@code currentRunId} to the next occurrence, or to none (the job completes).
     * Only one writer can win: the condition pins the run it replaces, so a second sweeper racing on the same
     * occurrence loses here, and a deleted job gets no new runs. It also pins {@code version}, the definition the
     * next occurrence was planned from: an update that kept the pending run (moved it to a new due time) loses the
     * writer that read the job before it, not only one that changed the pending run.
     */
    public Transactions.Write advancePending(
            String jobId, long version, String currentRunId, String nextRunId, Instant nextRunAt, Instant now) {
        Map<String, AttributeValue> values =
                new HashMap<>(Map.of(":cur", s(currentRunId), ":now", instant(now), ":seen", n(version)));
        String update = nextRunId != null
                ? "SET " + JobExpressions.pendingTo(nextRunId, nextRunAt, values) + ", #u = :now"
                : "SET #st = :completed, #u = :now REMOVE #p, #n";
        return new Transactions.Write(
                conditionalUpdate(jobId, update, "#p = :cur AND #st = :active AND #v = :seen", values));
    }

    /**
     * Marks the job DELETED, provided its pending run is still {@code expectedPending} (null: it has none), so the
     * cancel of that run written in the same transaction is the right one.
     */
    public Transactions.Write markDeleted(String jobId, String owner, String expectedPending, Instant now) {
        Map<String, AttributeValue> values = JobExpressions.ownerAt(owner, now);
        String cond = "#o = :owner AND #st <> :deleted AND " + JobExpressions.pendingIs(expectedPending, values);
        return new Transactions.Write(conditionalUpdate(
                jobId, "SET #st = :deleted, " + JobExpressions.BUMP + " REMOVE #p, #n", cond, values));
    }

    /**
     * Pauses an ACTIVE job, provided its pending run is still {@code expectedPending} (null: it has none), so the
     * cancel of that run written in the same transaction is the right one. Records {@code pausedAt}, from which
     * resume counts the missed occurrences, and keeps {@code nextRunAt} (the cancelled run's due time, which a
     * lagging sweep may have left before {@code pausedAt}) so resume counts from that one if it is earlier.
     * {@code note}: why, as the request said (null: none), shown until the job is resumed.
     */
    public Transactions.Write markPaused(String jobId, String owner, String expectedPending, String note, Instant now) {
        Map<String, AttributeValue> values = JobExpressions.ownerAt(owner, now);
        String cond = "#o = :owner AND #st = :active AND " + JobExpressions.pendingIs(expectedPending, values);
        String update = "SET #st = :paused, #pa = :now, " + JobExpressions.BUMP;
        if (note != null) {
            values.put(":note", s(note));
            update += ", #pn = :note";
        }
        return new Transactions.Write(conditionalUpdate(jobId, update + " REMOVE #p", cond, values));
    }

    /**
     * Resumes a job paused at {@code pausedAt} (the condition pins that pause, so two resumes cannot both win):
     * ACTIVE with {@code nextRunId} as its pending run, or COMPLETED when the schedule has no further occurrence.
     */
    public Transactions.Write markResumed(
            String jobId, String owner, Instant pausedAt, String nextRunId, Instant nextRunAt, Instant now) {
        Map<String, AttributeValue> values = JobExpressions.ownerAt(owner, now);
        values.put(":pausedAt", instant(pausedAt));
        String update = nextRunId != null
                ? "SET #st = :active, " + JobExpressions.pendingTo(nextRunId, nextRunAt, values) + ", "
                        + JobExpressions.BUMP + " REMOVE #pa, #pn"
                : "SET #st = :completed, " + JobExpressions.BUMP + " REMOVE #pa, #pn, #p, #n";
        return new Transactions.Write(
                conditionalUpdate(jobId, update, "#o = :owner AND #st = :paused AND #pa = :pausedAt", values));
    }

    /**
     * Replaces the job's definition (a {@code PUT}): provided it is still at {@code expectedVersion}, not DELETED,
     * and its pending run is still {@code expectedPending} (null: none), so the pending run replaced in the same
     * transaction is the right one. {@code job} carries the new definition, state, version, pending run and
     * {@code nextRunAt}; its id, owner and creation time are not written.
     */
    public Transactions.Write replace(Job job, long expectedVersion, String expectedPending) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":st",
                s(job.state().name()),
                ":v",
                n(job.version()),
                ":expected",
                n(expectedVersion),
                ":now",
                instant(job.updatedAt()),
                ":owner",
                s(job.owner())));
        // The definition's attributes are JobItems' to name: each gets a placeholder of its own here.
        Map<String, String> names = new HashMap<>();
        List<String> set = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        Map<String, AttributeValue> definition = JobItems.definition(job);
        for (var attribute : definition.entrySet()) {
            int i = names.size();
            names.put("#d" + i, attribute.getKey());
            values.put(":d" + i, attribute.getValue());
            set.add("#d" + i + " = :d" + i);
        }
        for (String attribute : JobItems.OPTIONAL_DEFINITION) {
            if (!definition.containsKey(attribute)) {
                int i = names.size();
                names.put("#d" + i, attribute);
                removed.add("#d" + i);
            }
        }
        String update = "SET " + String.join(", ", set) + ", #st = :st, #v = :v, #u = :now";
        if (job.pendingRunId() != null) {
            update += ", " + JobExpressions.pendingTo(job.pendingRunId(), job.nextRunAt(), values);
        } else {
            removed.addAll(List.of("#p", "#n"));
        }
        if (!removed.isEmpty()) {
            update += " REMOVE " + String.join(", ", removed);
        }
        String cond = "#o = :owner AND #v = :expected AND #st <> :deleted AND "
                + JobExpressions.pendingIs(expectedPending, values);
        return new Transactions.Write(conditionalUpdate(job.id(), update, cond, values, names));
    }

    /**
     * The claim's check on the job of a run under a concurrency limit ({@code overlap: forbid|queue}): the job may
     * run (as {@link #conditionRunnable}), its slot {@code slot} is within its {@code maxConcurrency} and still holds
     * {@code seenActive} (null: empty), the run whose state the same transaction checks; it becomes {@code runId}.
     * Two runs claimed at once into one slot both expect the same run there, so only one can win. The job as it was
     * comes back on failure.
     */
    public Transactions.Write takeSlot(String jobId, int slot, String seenActive, String runId) {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":run", s(runId)));
        String seen;
        if (seenActive == null) {
            seen = "attribute_not_exists(#slot)";
        } else {
            seen = "#slot = :seen";
            values.put(":seen", s(seenActive));
        }
        if (slot > 0) {
            // Within the limit as it stands now: a definition replaced since the executor's read may allow fewer.
            seen += " AND #f.#mc > :slot";
            values.put(":slot", n(slot));
        }
        return new Transactions.Write(conditionalUpdate(
                jobId,
                "SET #slot = :run",
                RUNNABLE + " AND " + seen,
                values,
                Map.of("#slot", JobItems.slotAttribute(slot))));
    }

    /**
     * A condition that the job exists and may run (ACTIVE or COMPLETED: not PAUSED, not DELETED), for a transaction
     * that must not act on a job deleted or paused meanwhile (trigger, resume). The job as it was comes back on
     * failure, so the caller can tell which.
     */
    public Transactions.Write conditionRunnable(String jobId) {
        return new Transactions.Write(TransactWriteItem.builder()
                .conditionCheck(c -> c.tableName(table.name())
                        .key(key(jobId))
                        .conditionExpression(RUNNABLE)
                        .expressionAttributeNames(JobExpressions.namesIn(RUNNABLE))
                        .expressionAttributeValues(JobExpressions.withStates(RUNNABLE, Map.of()))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build());
    }

    private static final String RUNNABLE = "attribute_exists(#id) AND #st IN (:active, :completed)";

    /**
     * One conditional update of a job's item, for a transaction. The attribute names and the job-state values
     * ({@code :active}, {@code :paused}, …) are read off the expressions, so each carries exactly the ones it uses
     * (DynamoDB refuses unused ones). On a lost condition the item as it was comes back
     * ({@link dev.punctual.core.infra.Transactions.Outcome#oldItem}), so a caller can tell why it lost.
     */
    private TransactWriteItem conditionalUpdate(
            String jobId, String update, String condition, Map<String, AttributeValue> values) {
        return conditionalUpdate(jobId, update, condition, values, Map.of());
    }

    /** {@link #conditionalUpdate}, with placeholders named here for attributes whose names are computed. */
    private TransactWriteItem conditionalUpdate(
            String jobId,
            String update,
            String condition,
            Map<String, AttributeValue> values,
            Map<String, String> computedNames) {
        String both = update + " " + condition;
        Map<String, String> names = JobExpressions.namesIn(both, computedNames);
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId))
                        .updateExpression(update)
                        .conditionExpression(condition)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(JobExpressions.withStates(both, values))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build();
    }

    /** The state of a job's item as a lost {@link #conditionRunnable} brought it back; empty: no job. */
    public static Optional<JobState> stateOf(Map<String, AttributeValue> item) {
        return Optional.ofNullable(item == null ? null : Items.str(item, STATE)).map(JobState::valueOf);
    }

    private static Map<String, AttributeValue> key(String jobId) {
        return Map.of(Resources.JOB_ID, s(jobId));
    }

    /** Sets the job's secret values, in the transaction that writes the job ({@link JobSecrets#putSecrets}). */
    public Transactions.Write putSecrets(String jobId, Map<String, String> values) {
        return secrets.putSecrets(jobId, values);
    }

    /** Sets (null: clears) the job's webhook signing secret, in the transaction that writes the job. */
    public Transactions.Write putWebhookSecret(String jobId, String secret) {
        return secrets.putWebhookSecret(jobId, secret);
    }

    /** The job's webhook signing secret, if it has one. */
    public Optional<String> webhookSecret(String jobId) {
        return secrets.webhookSecret(jobId);
    }

    /** The job's secret values (empty when it has none). */
    public Map<String, String> secrets(String jobId) {
        return secrets.secrets(jobId);
    }
}
