package dev.punctual.core.job;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;
import static dev.punctual.core.job.JobItems.ARGS;
import static dev.punctual.core.job.JobItems.BINARY_SHA;
import static dev.punctual.core.job.JobItems.ENV;
import static dev.punctual.core.job.JobItems.FIRING;
import static dev.punctual.core.job.JobItems.LABELS;
import static dev.punctual.core.job.JobItems.LIMITS;
import static dev.punctual.core.job.JobItems.MAX_ATTEMPTS;
import static dev.punctual.core.job.JobItems.NAME;
import static dev.punctual.core.job.JobItems.NEXT_RUN_AT;
import static dev.punctual.core.job.JobItems.NO_RETRY_CODES;
import static dev.punctual.core.job.JobItems.PAUSED_AT;
import static dev.punctual.core.job.JobItems.PAUSE_NOTE;
import static dev.punctual.core.job.JobItems.PENDING;
import static dev.punctual.core.job.JobItems.SCHEDULE;
import static dev.punctual.core.job.JobItems.SECRET_NAMES;
import static dev.punctual.core.job.JobItems.STATE;
import static dev.punctual.core.job.JobItems.TIMEOUT;
import static dev.punctual.core.job.JobItems.UPDATED_AT;
import static dev.punctual.core.job.JobItems.VERSION;

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
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * Every key, condition and update expression of the jobs table. Writes that take part in a transaction with the
 * runs table are returned as {@link Transactions.Write}s for the caller to combine.
 */
public final class JobRepository {
    /** The attribute of a job's secrets item ({@code jobId = <job>#secrets}) that holds the values. */
    private static final String SECRET_VALUES = "values";
    /** The attribute of a job's webhook item ({@code jobId = <job>#webhook}) that holds its signing secret. */
    private static final String WEBHOOK_SECRET = "secret";

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
            keys.add(secretsKey(id));
            keys.add(webhookKey(id));
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
                ? "SET " + pendingTo(nextRunId, nextRunAt, values) + ", #u = :now"
                : "SET #st = :completed, #u = :now REMOVE #p, #n";
        return new Transactions.Write(
                conditionalUpdate(jobId, update, "#p = :cur AND #st = :active AND #v = :seen", values));
    }

    /**
     * Marks the job DELETED, provided its pending run is still {@code expectedPending} (null: it has none), so the
     * cancel of that run written in the same transaction is the right one.
     */
    public Transactions.Write markDeleted(String jobId, String owner, String expectedPending, Instant now) {
        Map<String, AttributeValue> values = ownerAt(owner, now);
        String cond = "#o = :owner AND #st <> :deleted AND " + pendingIs(expectedPending, values);
        return new Transactions.Write(
                conditionalUpdate(jobId, "SET #st = :deleted, " + BUMP + " REMOVE #p, #n", cond, values));
    }

    /**
     * Pauses an ACTIVE job, provided its pending run is still {@code expectedPending} (null: it has none), so the
     * cancel of that run written in the same transaction is the right one. Records {@code pausedAt}, from which
     * resume counts the missed occurrences, and keeps {@code nextRunAt} (the cancelled run's due time, which a
     * lagging sweep may have left before {@code pausedAt}) so resume counts from that one if it is earlier.
     * {@code note}: why, as the request said (null: none), shown until the job is resumed.
     */
    public Transactions.Write markPaused(String jobId, String owner, String expectedPending, String note, Instant now) {
        Map<String, AttributeValue> values = ownerAt(owner, now);
        String cond = "#o = :owner AND #st = :active AND " + pendingIs(expectedPending, values);
        String update = "SET #st = :paused, #pa = :now, " + BUMP;
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
        Map<String, AttributeValue> values = ownerAt(owner, now);
        values.put(":pausedAt", instant(pausedAt));
        String update = nextRunId != null
                ? "SET #st = :active, " + pendingTo(nextRunId, nextRunAt, values) + ", " + BUMP + " REMOVE #pa, #pn"
                : "SET #st = :completed, " + BUMP + " REMOVE #pa, #pn, #p, #n";
        return new Transactions.Write(
                conditionalUpdate(jobId, update, "#o = :owner AND #st = :paused AND #pa = :pausedAt", values));
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

    /** The update clause that makes {@code runId}, due at {@code at}, the job's pending run. */
    private static String pendingTo(String runId, Instant at, Map<String, AttributeValue> values) {
        values.put(":next", s(runId));
        values.put(":nextAt", instant(at));
        return "#p = :next, #n = :nextAt";
    }

    /** A user's change to the job: a new version, stamped now. */
    private static final String BUMP = "#v = #v + :one, #u = :now";

    /** The values every change by the job's owner names: the owner, now, and the version step of {@link #BUMP}. */
    private static Map<String, AttributeValue> ownerAt(String owner, Instant now) {
        return new HashMap<>(Map.of(":owner", s(owner), ":now", instant(now), ":one", n(1)));
    }

    /**
     * Replaces the job's definition (a {@code PUT}): provided it is still at {@code expectedVersion}, not DELETED,
     * and its pending run is still {@code expectedPending} (null: none), so the pending run replaced in the same
     * transaction is the right one. {@code job} carries the new definition, state, version, pending run and
     * {@code nextRunAt}; its id, owner and creation time are not written.
     */
    public Transactions.Write replace(Job job, long expectedVersion, String expectedPending) {
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
        values.putAll(Map.of(
                ":sn",
                Items.strings(job.secretNames()),
                ":lim",
                JobItems.limitsValue(job.limits()),
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
        List<String> removed = new ArrayList<>();
        String update = "SET #name = :name, #b = :b, #sha = :sha, #args = :args, #env = :env, #sch = :sch, #to = :to,"
                + " #ma = :ma, #nr = :nr, #f = :f, #sn = :sn, #lim = :lim, #st = :st, #v = :v, #u = :now";
        if (job.labels().isEmpty()) {
            removed.add("#lab");
        } else {
            values.put(":lab", Items.stringMap(job.labels()));
            update += ", #lab = :lab";
        }
        if (job.webhook() == null) {
            removed.add("#wh");
        } else {
            values.put(":wh", JobItems.webhookValue(job.webhook()));
            update += ", #wh = :wh";
        }
        if (job.expect() == null) {
            removed.add("#ex");
        } else {
            values.put(":ex", JobItems.expectValue(job.expect()));
            update += ", #ex = :ex";
        }
        if (job.pendingRunId() != null) {
            update += ", " + pendingTo(job.pendingRunId(), job.nextRunAt(), values);
        } else {
            removed.addAll(List.of("#p", "#n"));
        }
        if (!removed.isEmpty()) {
            update += " REMOVE " + String.join(", ", removed);
        }
        String cond = "#o = :owner AND #v = :expected AND #st <> :deleted AND " + pendingIs(expectedPending, values);
        return new Transactions.Write(conditionalUpdate(job.id(), update, cond, values));
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
                        .expressionAttributeNames(namesIn(RUNNABLE))
                        .expressionAttributeValues(withStates(RUNNABLE, Map.of()))
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
        Map<String, String> names = namesIn(both, computedNames);
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId))
                        .updateExpression(update)
                        .conditionExpression(condition)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(withStates(both, values))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build();
    }

    /** The job attribute behind each name placeholder that the expressions of this class use. */
    private static final Map<String, String> PLACEHOLDERS = Map.ofEntries(
            Map.entry("#id", Resources.JOB_ID),
            Map.entry("#o", Resources.OWNER),
            Map.entry("#b", Resources.BINARY_ID),
            Map.entry("#st", STATE),
            Map.entry("#v", VERSION),
            Map.entry("#u", UPDATED_AT),
            Map.entry("#p", PENDING),
            Map.entry("#n", NEXT_RUN_AT),
            Map.entry("#pa", PAUSED_AT),
            Map.entry("#name", NAME),
            Map.entry("#sha", BINARY_SHA),
            Map.entry("#args", ARGS),
            Map.entry("#env", ENV),
            Map.entry("#sch", SCHEDULE),
            Map.entry("#to", TIMEOUT),
            Map.entry("#ma", MAX_ATTEMPTS),
            Map.entry("#nr", NO_RETRY_CODES),
            Map.entry("#f", FIRING),
            Map.entry("#mc", JobItems.MAX_CONCURRENCY),
            Map.entry("#sn", SECRET_NAMES),
            Map.entry("#lim", LIMITS),
            Map.entry("#lab", LABELS),
            Map.entry("#pn", PAUSE_NOTE),
            Map.entry("#wh", JobItems.WEBHOOK),
            Map.entry("#ex", JobItems.EXPECT));

    private static final Pattern NAME_PLACEHOLDER = Pattern.compile("#[a-z]+");
    private static final Pattern STATE_VALUE = Pattern.compile(":(active|completed|paused|deleted)\\b");

    private static Map<String, String> namesIn(String expressions) {
        return namesIn(expressions, Map.of());
    }

    private static Map<String, String> namesIn(String expressions, Map<String, String> computed) {
        Map<String, String> names = new HashMap<>();
        NAME_PLACEHOLDER.matcher(expressions).results().map(MatchResult::group).forEach(p -> {
            String attribute = computed.getOrDefault(p, PLACEHOLDERS.get(p));
            if (attribute == null) {
                throw new IllegalArgumentException("no job attribute for placeholder " + p);
            }
            names.put(p, attribute);
        });
        return names;
    }

    /** {@code values} plus each job state the expressions compare with ({@code :active} is ACTIVE, …). */
    private static Map<String, AttributeValue> withStates(String expressions, Map<String, AttributeValue> values) {
        Map<String, AttributeValue> all = new HashMap<>(values);
        STATE_VALUE
                .matcher(expressions)
                .results()
                .forEach(m -> all.put(
                        m.group(),
                        s(JobState.valueOf(m.group(1).toUpperCase(Locale.ROOT)).name())));
        return all;
    }

    /** The state of a job's item as a lost {@link #conditionRunnable} brought it back; empty: no job. */
    public static Optional<JobState> stateOf(Map<String, AttributeValue> item) {
        return Optional.ofNullable(item == null ? null : Items.str(item, STATE)).map(JobState::valueOf);
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
    public Transactions.Write putSecrets(String jobId, Map<String, String> values) {
        Map<String, AttributeValue> item = new HashMap<>(secretsKey(jobId));
        if (!values.isEmpty()) {
            item.put(SECRET_VALUES, Items.stringMap(values));
        }
        return new Transactions.Write(TransactWriteItem.builder()
                .put(p -> p.tableName(table.name()).item(item))
                .build());
    }

    /*
     * A webhook's signing secret: an item of its own, jobId = "<job>#webhook", for the same reasons as the secrets,
     * and apart from them so that either can be replaced without the other. Only whoever delivers reads it.
     */

    private static Map<String, AttributeValue> webhookKey(String jobId) {
        return key(jobId + "#webhook");
    }

    /** Sets (or, null, clears) the job's webhook signing secret, in the transaction that writes the job. */
    public Transactions.Write putWebhookSecret(String jobId, String secret) {
        Map<String, AttributeValue> item = new HashMap<>(webhookKey(jobId));
        if (secret != null) {
            item.put(WEBHOOK_SECRET, s(secret));
        }
        return new Transactions.Write(TransactWriteItem.builder()
                .put(p -> p.tableName(table.name()).item(item))
                .build());
    }

    /** The job's webhook signing secret, if it has one. */
    public Optional<String> webhookSecret(String jobId) {
        var item = dynamo.getItem(
                        b -> b.tableName(table.name()).key(webhookKey(jobId)).consistentRead(true))
                .item();
        return Optional.ofNullable(item == null ? null : Items.str(item, WEBHOOK_SECRET));
    }

    /** The job's secret values (empty when it has none). */
    public Map<String, String> secrets(String jobId) {
        var item = dynamo.getItem(
                        b -> b.tableName(table.name()).key(secretsKey(jobId)).consistentRead(true))
                .item();
        return item == null || !item.containsKey(SECRET_VALUES) ? Map.of() : Items.stringMap(item, SECRET_VALUES);
    }
}
