package dev.punctual.core.job;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Jitter;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.schedule.DateSpec;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.time.Instants;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
    private static final String NAME = "name";
    private static final String BINARY_SHA = "binarySha256";
    private static final String ARGS = "args";
    private static final String ENV = "env";
    private static final String SCHEDULE = "schedule";
    private static final String TIMEOUT = "timeoutSeconds";
    private static final String MAX_ATTEMPTS = "maxAttempts";
    private static final String NO_RETRY_CODES = "nonRetryableExitCodes";
    private static final String STATE = "state";
    private static final String VERSION = "version";
    private static final String CREATED_AT = "createdAt";
    private static final String UPDATED_AT = "updatedAt";
    private static final String PENDING = "pendingRunId";
    private static final String NEXT_RUN_AT = "nextRunAt";
    private static final String PAUSED_AT = "pausedAt";
    private static final String FIRING = "firing";
    private static final String ACTIVE_RUN = "activeRunId";
    private static final String SECRET_NAMES = "secretNames";
    private static final String LIMITS = "limits";
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
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        item.put(Resources.JOB_ID, s(job.id()));
        item.put(Resources.OWNER, s(job.owner()));
        item.put(Resources.OWNER_SORT, s(Instants.fixed(job.createdAt()) + "#" + job.id()));
        item.put(NAME, s(job.name()));
        item.put(Resources.BINARY_ID, s(job.binaryId()));
        item.put(BINARY_SHA, s(job.binarySha256()));
        item.put(ARGS, Items.strings(job.args()));
        item.put(ENV, Items.stringMap(job.env()));
        item.put(SCHEDULE, scheduleValue(job.schedule()));
        item.put(TIMEOUT, n(job.timeoutSeconds()));
        item.put(MAX_ATTEMPTS, n(job.maxAttempts()));
        if (!job.nonRetryableExitCodes().isEmpty()) {
            item.put(
                    NO_RETRY_CODES,
                    AttributeValue.fromL(
                            job.nonRetryableExitCodes().stream().map(c -> n(c)).toList()));
        }
        item.put(FIRING, firingValue(job.firing()));
        item.put(SECRET_NAMES, Items.strings(job.secretNames()));
        item.put(LIMITS, limitsValue(job.limits()));
        item.put(STATE, s(job.state().name()));
        item.put(VERSION, n(job.version()));
        item.put(CREATED_AT, instant(job.createdAt()));
        item.put(UPDATED_AT, instant(job.updatedAt()));
        if (job.pendingRunId() != null) {
            item.put(PENDING, s(job.pendingRunId()));
            item.put(NEXT_RUN_AT, instant(job.nextRunAt()));
        }
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
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(fromItem(item));
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
                r.items().stream().map(JobRepository::fromItem).toList(),
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
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId))
                        .updateExpression(update)
                        .conditionExpression("#p = :cur AND #st = :active")
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values))
                .build();
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
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId))
                        .updateExpression("SET #st = :deleted, #v = #v + :one, #u = :now REMOVE #p, #n")
                        .conditionExpression(cond)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values))
                .build();
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
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId))
                        .updateExpression("SET #st = :paused, #pa = :now, #v = #v + :one, #u = :now REMOVE #p")
                        .conditionExpression(cond)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values))
                .build();
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
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId))
                        .updateExpression(update)
                        .conditionExpression("#o = :owner AND #st = :paused AND #pa = :pausedAt")
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values))
                .build();
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
                scheduleValue(job.schedule()),
                ":to",
                n(job.timeoutSeconds()),
                ":ma",
                n(job.maxAttempts()),
                ":nr",
                AttributeValue.fromL(
                        job.nonRetryableExitCodes().stream().map(c -> n(c)).toList()),
                ":f",
                firingValue(job.firing())));
        values.put(":sn", Items.strings(job.secretNames()));
        values.put(":lim", limitsValue(job.limits()));
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
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(job.id()))
                        .updateExpression(update.toString())
                        .conditionExpression(cond)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build();
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
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId))
                        .updateExpression("SET #ar = :run")
                        .conditionExpression("attribute_exists(#id) AND #st IN (:active, :completed) AND " + seen)
                        .expressionAttributeNames(Map.of("#id", Resources.JOB_ID, "#st", STATE, "#ar", ACTIVE_RUN))
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build();
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

    private static Map<String, AttributeValue> key(String jobId) {
        return Map.of(Resources.JOB_ID, s(jobId));
    }

    private static AttributeValue firingValue(FiringPolicy f) {
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        if (f.jitter() != null) {
            m.put("jitterMode", s(f.jitter().mode().name()));
            m.put("jitterMax", s(f.jitter().max().toString()));
        }
        m.put("catchUp", s(f.catchUp().mode().name()));
        m.put("catchUpMaxAge", s(f.catchUp().maxAge().toString()));
        m.put("catchUpMaxRuns", n(f.catchUp().maxRuns()));
        m.put("overlap", s(f.overlap().name()));
        m.put("maxRunAge", s(f.maxRunAge().toString()));
        return AttributeValue.fromM(m);
    }

    /** Jobs written before firing policies existed have none stored: they get the defaults. */
    private static FiringPolicy firing(AttributeValue value) {
        if (value == null || !value.hasM()) {
            return FiringPolicy.DEFAULT;
        }
        Map<String, AttributeValue> m = value.m();
        String jitterMode = Items.str(m, "jitterMode");
        Jitter jitter = jitterMode == null
                ? null
                : new Jitter(Jitter.Mode.valueOf(jitterMode), Duration.parse(Items.str(m, "jitterMax")));
        CatchUp catchUp = new CatchUp(
                CatchUp.Mode.valueOf(Items.str(m, "catchUp")),
                Duration.parse(Items.str(m, "catchUpMaxAge")),
                Items.integer(m, "catchUpMaxRuns"));
        return new FiringPolicy(
                jitter, catchUp, Overlap.valueOf(Items.str(m, "overlap")), Duration.parse(Items.str(m, "maxRunAge")));
    }

    /**
     * The schedule as a map of strings, readable in the table; a dates entry is a string when it is an instant and
     * a {@code {local, zone}} map when it is a wall-clock time, as in the JSON.
     */
    private static AttributeValue scheduleValue(ScheduleSpec spec) {
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        m.put("type", s(spec.type()));
        putIfSet(m, "at", spec.at());
        putIfSet(m, "every", spec.every());
        putIfSet(m, "start", spec.start());
        putIfSet(m, "end", spec.end());
        putIfSet(m, "expression", spec.expression());
        putIfSet(m, "timezone", spec.timezone());
        putIfSet(m, "dstGap", spec.dstGap());
        putIfSet(m, "dstOverlap", spec.dstOverlap());
        if (spec.dates() != null) {
            m.put(
                    "dates",
                    AttributeValue.fromL(
                            spec.dates().stream().map(JobRepository::dateValue).toList()));
        }
        return AttributeValue.fromM(m);
    }

    private static AttributeValue dateValue(DateSpec d) {
        if (d.instant() != null) {
            return s(d.instant());
        }
        Map<String, AttributeValue> m = new LinkedHashMap<>();
        putIfSet(m, "local", d.local());
        putIfSet(m, "zone", d.zone());
        return AttributeValue.fromM(m);
    }

    private static void putIfSet(Map<String, AttributeValue> m, String name, String value) {
        if (value != null) {
            m.put(name, s(value));
        }
    }

    private static ScheduleSpec scheduleSpec(AttributeValue value) {
        Map<String, AttributeValue> m = value == null || !value.hasM() ? Map.of() : value.m();
        AttributeValue dates = m.get("dates");
        return new ScheduleSpec(
                Items.str(m, "type"),
                Items.str(m, "at"),
                Items.str(m, "every"),
                Items.str(m, "start"),
                Items.str(m, "end"),
                Items.str(m, "expression"),
                Items.str(m, "timezone"),
                Items.str(m, "dstGap"),
                Items.str(m, "dstOverlap"),
                dates == null || !dates.hasL()
                        ? null
                        : dates.l().stream().map(JobRepository::dateSpec).toList());
    }

    private static DateSpec dateSpec(AttributeValue v) {
        return v.s() != null ? DateSpec.of(v.s()) : DateSpec.local(Items.str(v.m(), "local"), Items.str(v.m(), "zone"));
    }

    static Job fromItem(Map<String, AttributeValue> item) {
        return new Job(
                Items.str(item, Resources.JOB_ID),
                Items.str(item, Resources.OWNER),
                Items.str(item, NAME),
                Items.str(item, Resources.BINARY_ID),
                Items.str(item, BINARY_SHA),
                Items.strings(item, ARGS),
                Items.stringMap(item, ENV),
                scheduleSpec(item.get(SCHEDULE)),
                Items.integer(item, TIMEOUT),
                Items.integer(item, MAX_ATTEMPTS),
                JobState.valueOf(Items.str(item, STATE)),
                Items.longValue(item, VERSION),
                Items.instant(item, CREATED_AT),
                Items.instant(item, UPDATED_AT),
                Items.str(item, PENDING),
                Items.instant(item, NEXT_RUN_AT),
                Items.instant(item, PAUSED_AT),
                item.containsKey(NO_RETRY_CODES)
                        ? item.get(NO_RETRY_CODES).l().stream()
                                .map(v -> Integer.valueOf(v.n()))
                                .toList()
                        : List.of(),
                firing(item.get(FIRING)),
                Items.str(item, ACTIVE_RUN),
                item.containsKey(SECRET_NAMES) ? Items.strings(item, SECRET_NAMES) : List.of(),
                limits(item.get(LIMITS)));
    }

    /** The limits the job named, by their JSON names; a job stored before limits existed named none. */
    private static AttributeValue limitsValue(RunLimits l) {
        Map<String, AttributeValue> m = new HashMap<>();
        RunLimits.FIELDS.forEach((name, f) -> {
            Integer v = f.apply(l);
            if (v != null) {
                m.put(name, n(v));
            }
        });
        return AttributeValue.fromM(m);
    }

    private static RunLimits limits(AttributeValue value) {
        Map<String, AttributeValue> m = value == null || !value.hasM() ? Map.of() : value.m();
        java.util.function.Function<String, Integer> get =
                k -> m.containsKey(k) ? Integer.valueOf(m.get(k).n()) : null;
        return new RunLimits(
                get.apply("processes"),
                get.apply("memoryMb"),
                get.apply("openFiles"),
                get.apply("fileSizeMb"),
                get.apply("cpuSeconds"),
                get.apply("diskMb"));
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
