package dev.punctual.core.run;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import dev.punctual.core.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * Every key, condition and update expression of the runs table, including its due index. The due index
 * (attributes {@code dueShard}/{@code dueSort}) holds every unfinished run at the time it next needs the sweeper's
 * attention: a SCHEDULED run at its due time (send it); a QUEUED or FAILED run when its message should long have
 * brought it back (send it again: the message was lost); a run an executor holds, when its lease should long
 * have been renewed (send it again: the executor died). Finished runs leave the index. The claim does not touch
 * the entry, so a run claimed straight from SCHEDULED (its message beat the mark) is still found at its due time
 * and its job's next occurrence is written then; otherwise a crash between send and mark would end a recurring
 * job.
 *
 * <p>Each transition is a conditional write that wins or loses. Losing is a normal outcome of a race (two sweepers,
 * two executors, a delete) and is reported as {@code false}, never thrown.
 */
public final class RunRepository {
    private static final String OWNER = Resources.OWNER;
    private static final String SCHEDULED_AT = "scheduledAt";
    private static final String STATE = "state";
    private static final String ATTEMPT = "attempt";
    private static final String MAX_ATTEMPTS = "maxAttempts";
    private static final String LEASE_OWNER = "leaseOwner";
    private static final String LEASE_EXPIRY = "leaseExpiry";
    private static final String EXIT_CODE = "exitCode";
    private static final String STARTED_AT = "startedAt";
    private static final String FINISHED_AT = "finishedAt";
    private static final String ERROR = "error";
    private static final String LOG_KEY = "logKey";
    private static final String CREATED_AT = "createdAt";
    private static final String UPDATED_AT = "updatedAt";
    private static final String QUEUED_AT = "queuedAt";
    private static final String OCCURRENCE = "occurrence";
    private static final String LAUNCHED_AT = "launchedAt";

    private final DynamoDbClient dynamo;
    private final TableSpec table;
    private final TimeBuckets buckets;
    private final Settings settings;

    public RunRepository(DynamoDbClient dynamo, Resources resources, TimeBuckets buckets, Settings settings) {
        this.dynamo = dynamo;
        this.table = resources.runs();
        this.buckets = buckets;
        this.settings = settings;
    }

    /** A run as the due index shows it, and when it wants attention. The state may lag the base item. */
    public record Attention(Run run, Instant at) {}

    /**
     * Writes a SCHEDULED run into the due index; loses if this occurrence already exists. A run created already due
     * (a catch-up, a backfill) is indexed at its creation, not in a past bucket the sweeper has left behind.
     */
    public TransactWriteItem insertScheduled(Run run) {
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        item.put(Resources.JOB_ID, s(run.jobId()));
        item.put(Resources.RUN_ID, s(run.runId()));
        item.put(OWNER, s(run.owner()));
        item.put(SCHEDULED_AT, instant(run.scheduledAt()));
        if (!run.occurrence().equals(run.scheduledAt())) {
            item.put(OCCURRENCE, instant(run.occurrence()));
        }
        item.put(STATE, s(RunState.SCHEDULED.name()));
        item.put(ATTEMPT, n(0));
        item.put(MAX_ATTEMPTS, n(run.maxAttempts()));
        item.put(CREATED_AT, instant(run.createdAt()));
        item.put(UPDATED_AT, instant(run.createdAt()));
        Instant attention = Transition.SCHEDULE
                .attention(run, run.createdAt(), false, settings)
                .orElseThrow();
        item.put(Resources.DUE_SHARD, s(buckets.partitionFor(attention, run.jobId(), run.runId())));
        item.put(Resources.DUE_SORT, s(TimeBuckets.sortKey(attention, run.jobId(), run.runId())));
        return TransactWriteItem.builder()
                .put(p -> p.tableName(table.name())
                        .item(item)
                        .conditionExpression("attribute_not_exists(#r)")
                        .expressionAttributeNames(Map.of("#r", Resources.RUN_ID)))
                .build();
    }

    /**
     * {@link #insertScheduled}, also over a CANCELLED run of the same occurrence (the pending run a pause
     * cancelled, scheduled again by resume); loses if the occurrence exists in any other state.
     */
    public TransactWriteItem insertScheduledOverCancelled(Run run) {
        TransactWriteItem insert = insertScheduled(run);
        return TransactWriteItem.builder()
                .put(p -> p.tableName(table.name())
                        .item(insert.put().item())
                        .conditionExpression("attribute_not_exists(#r) OR #st = :cancelled")
                        .expressionAttributeNames(Map.of("#r", Resources.RUN_ID, "#st", STATE))
                        .expressionAttributeValues(Map.of(":cancelled", s(RunState.CANCELLED.name()))))
                .build();
    }

    public Optional<Run> get(String jobId, String runId) {
        var item = dynamo.getItem(
                        b -> b.tableName(table.name()).key(key(jobId, runId)).consistentRead(true))
                .item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(fromItem(item));
    }

    /**
     * Whether the occurrence {@code runId} already has a run that is not a cancelled one (it ran, is running or is
     * waiting): such an occurrence must not be scheduled again. A cancelled one may be, over the cancelled item.
     */
    public boolean occupied(String jobId, String runId) {
        return get(jobId, runId).filter(r -> r.state() != RunState.CANCELLED).isPresent();
    }

    /**
     * Every run still in one partition of the due index that is due at or before {@code upTo}: SCHEDULED runs to
     * send, and runs claimed before they were marked, whose successor may still have to be written.
     */
    public List<Run> dueIn(String partition, Instant upTo) {
        return attentionIn(partition, upTo).stream().map(Attention::run).toList();
    }

    /** {@link #dueIn}, with the time each entry asked for attention (the instant its sort key starts with). */
    public List<Attention> attentionIn(String partition, Instant upTo) {
        List<Attention> out = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        do {
            Map<String, AttributeValue> from = start;
            QueryResponse r = dynamo.query(b -> b.tableName(table.name())
                    .indexName(Resources.RUNS_BY_DUE)
                    .keyConditionExpression("#p = :p AND #s <= :upTo")
                    .expressionAttributeNames(Map.of("#p", Resources.DUE_SHARD, "#s", Resources.DUE_SORT))
                    .expressionAttributeValues(Map.of(":p", s(partition), ":upTo", s(TimeBuckets.sortUpperBound(upTo))))
                    .exclusiveStartKey(from));
            // The index is eventually consistent: states seen here may lag; every write acting on them is
            // conditional on the base item.
            r.items()
                    .forEach(item -> out.add(new Attention(
                            fromItem(item), TimeBuckets.attentionOf(Items.str(item, Resources.DUE_SORT)))));
            start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
        } while (start != null);
        return out;
    }

    /**
     * SCHEDULED → QUEUED, once its message is sent. Loses if someone else queued, claimed or cancelled it. The
     * index entry moves to when the message must have delivered the run (it is delayed by at most the lookahead),
     * plus the requeue timeout: only a lost message leaves it QUEUED until then.
     */
    public TransactWriteItem markQueued(String jobId, String runId, Instant now) {
        Instant attention =
                Transition.MARK_QUEUED.attention(null, now, false, settings).orElseThrow();
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId, runId))
                        .updateExpression("SET #st = :queued, #q = :now, #u = :now, #ds = :ds, #dk = :dk")
                        .conditionExpression("#st = :scheduled")
                        .expressionAttributeNames(Map.of(
                                "#st",
                                STATE,
                                "#q",
                                QUEUED_AT,
                                "#u",
                                UPDATED_AT,
                                "#ds",
                                Resources.DUE_SHARD,
                                "#dk",
                                Resources.DUE_SORT))
                        .expressionAttributeValues(Map.of(
                                ":queued",
                                s(RunState.QUEUED.name()),
                                ":scheduled",
                                s(RunState.SCHEDULED.name()),
                                ":now",
                                instant(now),
                                ":ds",
                                s(buckets.partitionFor(attention, jobId, runId)),
                                ":dk",
                                s(TimeBuckets.sortKey(attention, jobId, runId)))))
                .build();
    }

    /**
     * Moves a run's index entry to {@code attention}, provided it is still in the state and attempt the sweeper
     * saw (otherwise someone moved it on meanwhile, and their write placed it).
     */
    public boolean reindex(String jobId, String runId, RunState seenState, int seenAttempt, Instant attention) {
        try {
            dynamo.updateItem(u -> u.tableName(table.name())
                    .key(key(jobId, runId))
                    .updateExpression("SET #ds = :ds, #dk = :dk")
                    .conditionExpression("#st = :seen AND #a = :attempt")
                    .expressionAttributeNames(
                            Map.of("#ds", Resources.DUE_SHARD, "#dk", Resources.DUE_SORT, "#st", STATE, "#a", ATTEMPT))
                    .expressionAttributeValues(Map.of(
                            ":seen",
                            s(seenState.name()),
                            ":attempt",
                            n(seenAttempt),
                            ":ds",
                            s(buckets.partitionFor(attention, jobId, runId)),
                            ":dk",
                            s(TimeBuckets.sortKey(attention, jobId, runId)))));
            return true;
        } catch (ConditionalCheckFailedException moved) {
            return false;
        }
    }

    /** Removes a finished run from the due index. */
    public boolean unindex(String jobId, String runId) {
        try {
            dynamo.updateItem(u -> u.tableName(table.name())
                    .key(key(jobId, runId))
                    .updateExpression("REMOVE #ds, #dk")
                    .conditionExpression("attribute_exists(#ds) AND #st IN (:succeeded, :dead, :cancelled, :skipped)")
                    .expressionAttributeNames(
                            Map.of("#ds", Resources.DUE_SHARD, "#dk", Resources.DUE_SORT, "#st", STATE))
                    .expressionAttributeValues(Map.of(
                            ":succeeded",
                            s(RunState.SUCCEEDED.name()),
                            ":dead",
                            s(RunState.DEAD.name()),
                            ":cancelled",
                            s(RunState.CANCELLED.name()),
                            ":skipped",
                            s(RunState.SKIPPED.name()))));
            return true;
        } catch (ConditionalCheckFailedException lost) {
            return false;
        }
    }

    /**
     * How early before its due time a claim may still win: the executor waits out the sub-second rest of a
     * message's delay itself, so the condition only has to stop a message that comes (or is sent) early.
     */
    public static final Duration CLAIM_TOLERANCE = Duration.ofSeconds(1);

    /**
     * The bound the claim's condition compares {@code scheduledAt} with: {@code scheduledAt <= bound} holds exactly
     * for the instants before {@code ⌊now + tolerance − 1 s⌋ + 1 s}, so never for a run due more than
     * {@link #CLAIM_TOLERANCE} after {@code now}, and always for one due at or before {@code now}.
     *
     * <p>{@code scheduledAt} is stored as {@code Instant.toString()}: a 19-character {@code yyyy-MM-ddTHH:mm:ss}
     * prefix, then {@code Z}, or a fraction ({@code .SSS}, {@code .SSSSSS}…) and {@code Z} when it is not a whole
     * second. Those strings do not sort in time order within one second ({@code "…:05Z"} sorts after
     * {@code "…:05.500Z"}, as {@code '.' < 'Z'}), but every instant of a second S sorts at or before S's
     * whole-second string, and every instant of a later second after it: the bound is a whole-second string.
     */
    public static String dueBound(Instant now) {
        return now.plus(CLAIM_TOLERANCE)
                .minusSeconds(1)
                .truncatedTo(ChronoUnit.SECONDS)
                .toString();
    }

    /** Whether a run due at {@code scheduledAt} may be claimed at {@code now}: the claim's due check, in Java. */
    public static boolean dueForClaim(Instant scheduledAt, Instant now) {
        return scheduledAt.isBefore(now.plus(CLAIM_TOLERANCE)
                .minusSeconds(1)
                .truncatedTo(ChronoUnit.SECONDS)
                .plusSeconds(1));
    }

    /**
     * The claim: SCHEDULED/QUEUED/FAILED, or RUNNING with an expired lease, → RUNNING with attempt + 1 (the new
     * fencing token), this executor as lease owner and a fresh lease — provided the run is due
     * ({@link #dueForClaim}): a message that arrives early, whether a clock is off, the run was moved later after
     * its message was sent, or the message is forged, cannot start it before its time, however the executors
     * interleave. Combined by the caller with the job's not-deleted check; on loss the item as it was comes back in
     * the cancellation reasons.
     */
    public TransactWriteItem claim(String jobId, String runId, String executorId, Instant leaseExpiry, Instant now) {
        Map<String, String> names = new HashMap<>();
        names.put("#r", Resources.RUN_ID);
        names.put("#due", SCHEDULED_AT);
        names.put("#st", STATE);
        names.put("#a", ATTEMPT);
        names.put("#lo", LEASE_OWNER);
        names.put("#le", LEASE_EXPIRY);
        names.put("#sa", STARTED_AT);
        names.put("#u", UPDATED_AT);
        names.put("#ec", EXIT_CODE);
        names.put("#fa", FINISHED_AT);
        names.put("#err", ERROR);
        // A new attempt has no log yet: the previous attempt's must not pass for this one's if its upload fails.
        names.put("#lk", LOG_KEY);
        names.put("#la", LAUNCHED_AT);
        names.put("#ma", MAX_ATTEMPTS);
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":running", s(RunState.RUNNING.name()));
        values.put(":scheduled", s(RunState.SCHEDULED.name()));
        values.put(":queued", s(RunState.QUEUED.name()));
        values.put(":failed", s(RunState.FAILED.name()));
        values.put(":one", n(1));
        values.put(":me", s(executorId));
        values.put(":exp", n(leaseExpiry.toEpochMilli()));
        values.put(":nowMs", n(now.toEpochMilli()));
        values.put(":now", instant(now));
        values.put(":dueBound", s(dueBound(now)));
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId, runId))
                        .updateExpression(
                                "SET #st = :running, #a = #a + :one, #lo = :me, #le = :exp, #sa = :now, #u = :now"
                                        + " REMOVE #ec, #fa, #err, #lk, #la")
                        // maxAttempts bounds the attempts that start: an attempt whose executor died without an outcome
                        // counted too, and with none left the executor ends the run instead (RunWorker.lostClaim).
                        .conditionExpression("attribute_exists(#r) AND #due <= :dueBound"
                                + " AND (attribute_not_exists(#ma) OR #a < #ma)"
                                + " AND (#st IN (:scheduled, :queued, :failed)"
                                + " OR (#st = :running AND #le < :nowMs))")
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build();
    }

    /** Extends the lease of the attempt this executor holds; false means it has been fenced off. */
    public boolean heartbeat(
            String jobId, String runId, int attempt, String executorId, Instant leaseExpiry, Instant now) {
        return update(
                jobId,
                runId,
                "SET #le = :exp, #u = :now",
                Map.of("#le", LEASE_EXPIRY, "#u", UPDATED_AT),
                Map.of(":exp", n(leaseExpiry.toEpochMilli()), ":now", instant(now)),
                attempt,
                executorId);
    }

    /**
     * {@link #heartbeat}, right before the binary starts: it also marks the attempt launched. An attempt whose
     * executor died before this point never ran its binary, and is given back ({@link #giveBack}).
     */
    public boolean launch(
            String jobId, String runId, int attempt, String executorId, Instant leaseExpiry, Instant now) {
        return update(
                jobId,
                runId,
                "SET #le = :exp, #u = :now, #la = :now",
                Map.of("#le", LEASE_EXPIRY, "#u", UPDATED_AT, "#la", LAUNCHED_AT),
                Map.of(":exp", n(leaseExpiry.toEpochMilli()), ":now", instant(now)),
                attempt,
                executorId);
    }

    /**
     * An attempt whose executor died or froze between its claim and the binary's start (its lease expired, and it
     * was never launched) did not run: FAILED with the attempt given back, so the next claim may take another
     * one. Without it, such an attempt that was the last ended the run DEAD without its binary having run its
     * attempts (found by the fault suite: kill -9 right after a claim). Loses if the run moved on since {@code seen}.
     */
    public boolean giveBack(Run seen, Instant now) {
        Instant attention =
                Transition.GIVE_BACK.attention(null, now, false, settings).orElseThrow();
        try {
            dynamo.updateItem(u -> u.tableName(table.name())
                    .key(key(seen.jobId(), seen.runId()))
                    .updateExpression(
                            "SET #st = :failed, #ma = #ma + :one, #u = :now, #err = :why, #ds = :ds, #dk = :dk"
                                    + " REMOVE #le")
                    .conditionExpression(
                            "#st = :running AND #a = :attempt AND #le < :nowMs AND attribute_not_exists(#la)")
                    .expressionAttributeNames(Map.of(
                            "#st", STATE,
                            "#ma", MAX_ATTEMPTS,
                            "#u", UPDATED_AT,
                            "#err", ERROR,
                            "#ds", Resources.DUE_SHARD,
                            "#dk", Resources.DUE_SORT,
                            "#le", LEASE_EXPIRY,
                            "#a", ATTEMPT,
                            "#la", LAUNCHED_AT))
                    .expressionAttributeValues(Map.of(
                            ":failed", s(RunState.FAILED.name()),
                            ":running", s(RunState.RUNNING.name()),
                            ":one", n(1),
                            ":now", instant(now),
                            ":why",
                                    s("attempt " + seen.attempt() + " never started its binary: its executor "
                                            + seen.leaseOwner() + " stopped first; given back"),
                            ":ds", s(buckets.partitionFor(attention, seen.jobId(), seen.runId())),
                            ":dk", s(TimeBuckets.sortKey(attention, seen.jobId(), seen.runId())),
                            ":attempt", n(seen.attempt()),
                            ":nowMs", n(now.toEpochMilli()))));
            return true;
        } catch (ConditionalCheckFailedException moved) {
            return false;
        }
    }

    /**
     * Records the outcome of the attempt this executor holds: SUCCEEDED, FAILED (will retry) or DEAD. Terminal
     * outcomes get a TTL so history expires after the retention period.
     */
    public boolean finish(
            String jobId,
            String runId,
            int attempt,
            String executorId,
            RunState to,
            Integer exitCode,
            String error,
            String logKey,
            Instant now,
            Instant expiresAt) {
        return finish(jobId, runId, attempt, executorId, to, exitCode, error, logKey, now, expiresAt, null);
    }

    /**
     * {@link #finish}; a DEAD outcome with its {@code owner} also enters the sparse dead-letter index
     * ({@link Resources#RUNS_BY_OWNER_STATE}), newest last by finish time.
     */
    public boolean finish(
            String jobId,
            String runId,
            int attempt,
            String executorId,
            RunState to,
            Integer exitCode,
            String error,
            String logKey,
            Instant now,
            Instant expiresAt,
            String owner) {
        return finish(jobId, runId, attempt, executorId, to, exitCode, error, logKey, now, expiresAt, owner, false);
    }

    /**
     * {@link #finish}; with {@code neverMarked} (the run was claimed straight from SCHEDULED, so no dispatcher wrote
     * its job's next occurrence, and if the dispatcher that sent it crashed none will), a terminal outcome moves the
     * run's index entry to now instead of removing it: the next sweep writes the successor, then unindexes it.
     */
    public boolean finish(
            String jobId,
            String runId,
            int attempt,
            String executorId,
            RunState to,
            Integer exitCode,
            String error,
            String logKey,
            Instant now,
            Instant expiresAt,
            String owner,
            boolean neverMarked) {
        return finish(
                jobId,
                runId,
                attempt,
                executorId,
                to,
                exitCode,
                error,
                logKey,
                now,
                expiresAt,
                owner,
                neverMarked,
                false);
    }

    /**
     * {@link #finish}; with {@code released} (FAILED because the executor stopped it on shutdown, not because it
     * failed) the run also gets one more attempt: a release does not use one up.
     */
    public boolean finish(
            String jobId,
            String runId,
            int attempt,
            String executorId,
            RunState to,
            Integer exitCode,
            String error,
            String logKey,
            Instant now,
            Instant expiresAt,
            String owner,
            boolean neverMarked,
            boolean released) {
        Map<String, String> names =
                new HashMap<>(Map.of("#st", STATE, "#fa", FINISHED_AT, "#u", UPDATED_AT, "#le", LEASE_EXPIRY));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":to", s(to.name()), ":now", instant(now)));
        StringBuilder set = new StringBuilder("SET #st = :to, #fa = :now, #u = :now");
        if (released) {
            set.append(", #ma = #ma + :one");
            names.put("#ma", MAX_ATTEMPTS);
            values.put(":one", n(1));
        }
        List<String> remove = new ArrayList<>(List.of("#le"));
        optional(set, remove, names, values, "#ec", EXIT_CODE, exitCode == null ? null : n(exitCode));
        optional(set, remove, names, values, "#err", ERROR, error == null ? null : s(error));
        if (logKey != null) {
            set.append(", #lk = :lk");
            names.put("#lk", LOG_KEY);
            values.put(":lk", s(logKey));
        }
        names.put("#ds", Resources.DUE_SHARD);
        names.put("#dk", Resources.DUE_SORT);
        if (to.terminal()) {
            set.append(", #x = :x");
            names.put("#x", Resources.EXPIRES_AT);
            values.put(":x", n(expiresAt.getEpochSecond()));
            Optional<Instant> kept = (to == RunState.DEAD ? Transition.DIE : Transition.SUCCEED)
                    .attention(null, now, neverMarked, settings);
            if (kept.isPresent()) {
                set.append(", #ds = :ds, #dk = :dk");
                values.put(":ds", s(buckets.partitionFor(kept.get(), jobId, runId)));
                values.put(":dk", s(TimeBuckets.sortKey(kept.get(), jobId, runId)));
            } else {
                remove.add("#ds");
                remove.add("#dk");
            }
            if (to == RunState.DEAD && owner != null) {
                set.append(", #os = :os, #fs = :fs");
                names.put("#os", Resources.OWNER_STATE);
                names.put("#fs", Resources.FINISHED_SORT);
                values.put(":os", s(deadPartition(owner)));
                values.put(":fs", s(TimeBuckets.sortKey(now, jobId, runId)));
            }
        } else {
            // FAILED: its message returns within the retry backoff (at most the cap); if it never does, the
            // sweeper sends the run again this long after.
            Instant attention =
                    Transition.FAIL.attention(null, now, false, settings).orElseThrow();
            set.append(", #ds = :ds, #dk = :dk");
            values.put(":ds", s(buckets.partitionFor(attention, jobId, runId)));
            values.put(":dk", s(TimeBuckets.sortKey(attention, jobId, runId)));
        }
        return update(jobId, runId, set + " REMOVE " + String.join(", ", remove), names, values, attempt, executorId);
    }

    /** Cancels a SCHEDULED run in the same transaction that deletes its job. */
    public TransactWriteItem cancelScheduled(String jobId, String runId, Instant now) {
        return cancelScheduled(jobId, runId, now, "job deleted");
    }

    /** Cancels a SCHEDULED run in the same transaction that deletes or pauses its job, saying why. */
    public TransactWriteItem cancelScheduled(String jobId, String runId, Instant now, String reason) {
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId, runId))
                        .updateExpression("SET #st = :cancelled, #u = :now, #err = :why REMOVE #ds, #dk")
                        .conditionExpression("#st = :scheduled")
                        .expressionAttributeNames(Map.of(
                                "#st",
                                STATE,
                                "#u",
                                UPDATED_AT,
                                "#err",
                                ERROR,
                                "#ds",
                                Resources.DUE_SHARD,
                                "#dk",
                                Resources.DUE_SORT))
                        .expressionAttributeValues(Map.of(
                                ":cancelled",
                                s(RunState.CANCELLED.name()),
                                ":scheduled",
                                s(RunState.SCHEDULED.name()),
                                ":now",
                                instant(now),
                                ":why",
                                s(reason))))
                .build();
    }

    /**
     * Cancels a run of a deleted or paused job that is not running: it has not started (it waited in the queue), or
     * its last attempt's executor stopped without an outcome (RUNNING under an expired lease). Without the second
     * case such a run stayed RUNNING for ever: the claim that would have taken it over checks the job first, and
     * found it deleted (found by the chaos run of issue 15).
     */
    public boolean cancelUnstarted(String jobId, String runId, String reason, Instant now, Instant expiresAt) {
        try {
            dynamo.updateItem(u -> u.tableName(table.name())
                    .key(key(jobId, runId))
                    .updateExpression(
                            "SET #st = :to, #u = :now, #fa = :now, #err = :why, #x = :x" + " REMOVE #ds, #dk, #le")
                    .conditionExpression("#st IN (:scheduled, :queued, :failed) OR (#st = :running AND #le < :nowMs)")
                    .expressionAttributeNames(Map.of(
                            "#st",
                            STATE,
                            "#u",
                            UPDATED_AT,
                            "#err",
                            ERROR,
                            "#fa",
                            FINISHED_AT,
                            "#x",
                            Resources.EXPIRES_AT,
                            "#ds",
                            Resources.DUE_SHARD,
                            "#dk",
                            Resources.DUE_SORT,
                            "#le",
                            LEASE_EXPIRY))
                    .expressionAttributeValues(Map.of(
                            ":to",
                            s(RunState.CANCELLED.name()),
                            ":scheduled",
                            s(RunState.SCHEDULED.name()),
                            ":queued",
                            s(RunState.QUEUED.name()),
                            ":failed",
                            s(RunState.FAILED.name()),
                            ":running",
                            s(RunState.RUNNING.name()),
                            ":nowMs",
                            n(now.toEpochMilli()),
                            ":now",
                            instant(now),
                            ":why",
                            s(reason),
                            ":x",
                            n(expiresAt.getEpochSecond()))));
            return true;
        } catch (ConditionalCheckFailedException lost) {
            return false;
        }
    }

    /**
     * Ends a run that has not started (SCHEDULED, QUEUED or FAILED) as CANCELLED or SKIPPED, saying why; it leaves
     * the due index and expires after the retention period. Loses if it started or finished meanwhile.
     */
    public boolean endUnstarted(
            String jobId, String runId, RunState to, String reason, Instant now, Instant expiresAt) {
        try {
            dynamo.updateItem(u -> u.tableName(table.name())
                    .key(key(jobId, runId))
                    .updateExpression("SET #st = :to, #u = :now, #fa = :now, #err = :why, #x = :x REMOVE #ds, #dk")
                    .conditionExpression("#st IN (:scheduled, :queued, :failed)")
                    .expressionAttributeNames(Map.of(
                            "#st",
                            STATE,
                            "#u",
                            UPDATED_AT,
                            "#err",
                            ERROR,
                            "#fa",
                            FINISHED_AT,
                            "#x",
                            Resources.EXPIRES_AT,
                            "#ds",
                            Resources.DUE_SHARD,
                            "#dk",
                            Resources.DUE_SORT))
                    .expressionAttributeValues(Map.of(
                            ":to",
                            s(to.name()),
                            ":scheduled",
                            s(RunState.SCHEDULED.name()),
                            ":queued",
                            s(RunState.QUEUED.name()),
                            ":failed",
                            s(RunState.FAILED.name()),
                            ":now",
                            instant(now),
                            ":why",
                            s(reason),
                            ":x",
                            n(expiresAt.getEpochSecond()))));
            return true;
        } catch (ConditionalCheckFailedException lost) {
            return false;
        }
    }

    /**
     * SCHEDULED → SKIPPED, in the transaction that moves its job past it to a later occurrence (a missed run its
     * catch-up policy leaves out).
     */
    public TransactWriteItem skipScheduled(String jobId, String runId, String reason, Instant now, Instant expiresAt) {
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(jobId, runId))
                        .updateExpression(
                                "SET #st = :skipped, #u = :now, #fa = :now, #err = :why, #x = :x REMOVE #ds, #dk")
                        .conditionExpression("#st = :scheduled")
                        .expressionAttributeNames(Map.of(
                                "#st",
                                STATE,
                                "#u",
                                UPDATED_AT,
                                "#fa",
                                FINISHED_AT,
                                "#err",
                                ERROR,
                                "#x",
                                Resources.EXPIRES_AT,
                                "#ds",
                                Resources.DUE_SHARD,
                                "#dk",
                                Resources.DUE_SORT))
                        .expressionAttributeValues(Map.of(
                                ":skipped",
                                s(RunState.SKIPPED.name()),
                                ":scheduled",
                                s(RunState.SCHEDULED.name()),
                                ":now",
                                instant(now),
                                ":why",
                                s(reason),
                                ":x",
                                n(expiresAt.getEpochSecond()))))
                .build();
    }

    /**
     * Moves a SCHEDULED run to a new due time and attempt budget (a job update that keeps the same next
     * occurrence); loses if the run was sent, claimed or cancelled meanwhile.
     */
    public TransactWriteItem reschedule(Run run) {
        return TransactWriteItem.builder()
                .update(u -> u.tableName(table.name())
                        .key(key(run.jobId(), run.runId()))
                        .updateExpression("SET #sa = :sa, #oc = :oc, #m = :m, #u = :now, #ds = :ds, #dk = :dk")
                        .conditionExpression("#st = :scheduled")
                        .expressionAttributeNames(Map.of(
                                "#st",
                                STATE,
                                "#sa",
                                SCHEDULED_AT,
                                "#oc",
                                OCCURRENCE,
                                "#m",
                                MAX_ATTEMPTS,
                                "#u",
                                UPDATED_AT,
                                "#ds",
                                Resources.DUE_SHARD,
                                "#dk",
                                Resources.DUE_SORT))
                        .expressionAttributeValues(Map.of(
                                ":scheduled",
                                s(RunState.SCHEDULED.name()),
                                ":sa",
                                instant(run.scheduledAt()),
                                ":oc",
                                instant(run.occurrence()),
                                ":m",
                                n(run.maxAttempts()),
                                ":now",
                                instant(run.createdAt()),
                                ":ds",
                                s(buckets.partitionFor(run.dueSince(), run.jobId(), run.runId())),
                                ":dk",
                                s(TimeBuckets.sortKey(run.dueSince(), run.jobId(), run.runId())))))
                .build();
    }

    /**
     * A condition that the run {@code runId} of the job is not RUNNING under a live lease: part of the claim of a
     * job whose runs must not overlap. The run as it was comes back on failure.
     */
    public TransactWriteItem conditionNotRunning(String jobId, String runId, Instant now) {
        return TransactWriteItem.builder()
                .conditionCheck(c -> c.tableName(table.name())
                        .key(key(jobId, runId))
                        .conditionExpression("attribute_not_exists(#st) OR #st <> :running OR #le < :nowMs")
                        .expressionAttributeNames(Map.of("#st", STATE, "#le", LEASE_EXPIRY))
                        .expressionAttributeValues(
                                Map.of(":running", s(RunState.RUNNING.name()), ":nowMs", n(now.toEpochMilli())))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build();
    }

    /** One page of a job's runs, newest first. */
    public PageOfRuns listForJob(String jobId, int limit, Map<String, AttributeValue> startKey) {
        QueryResponse r = dynamo.query(b -> b.tableName(table.name())
                .keyConditionExpression("#j = :j")
                .expressionAttributeNames(Map.of("#j", Resources.JOB_ID))
                .expressionAttributeValues(Map.of(":j", s(jobId)))
                .scanIndexForward(false)
                .limit(limit)
                .exclusiveStartKey(startKey == null || startKey.isEmpty() ? null : startKey));
        return new PageOfRuns(
                r.items().stream().map(RunRepository::fromItem).toList(),
                r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null);
    }

    public record PageOfRuns(List<Run> items, Map<String, AttributeValue> lastKey) {}

    /**
     * Marks DEAD a run whose message was dead-lettered, provided it is still at the attempt seen and waiting for
     * that message (QUEUED or FAILED) or held under an expired lease; it leaves the due index and enters the
     * dead-letter index. Loses if the run moved on (finished, claimed, re-driven) meanwhile.
     */
    public boolean markDeadLettered(Run seen, String error, Instant now, Instant expiresAt) {
        Map<String, String> names = new HashMap<>(Map.of(
                "#st",
                STATE,
                "#a",
                ATTEMPT,
                "#le",
                LEASE_EXPIRY,
                "#fa",
                FINISHED_AT,
                "#u",
                UPDATED_AT,
                "#err",
                ERROR,
                "#x",
                Resources.EXPIRES_AT,
                "#os",
                Resources.OWNER_STATE,
                "#fs",
                Resources.FINISHED_SORT,
                "#ds",
                Resources.DUE_SHARD));
        names.put("#dk", Resources.DUE_SORT);
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":dead",
                s(RunState.DEAD.name()),
                ":queued",
                s(RunState.QUEUED.name()),
                ":failed",
                s(RunState.FAILED.name()),
                ":running",
                s(RunState.RUNNING.name()),
                ":attempt",
                n(seen.attempt()),
                ":nowMs",
                n(now.toEpochMilli()),
                ":now",
                instant(now),
                ":why",
                s(error),
                ":x",
                n(expiresAt.getEpochSecond()),
                ":os",
                s(deadPartition(seen.owner()))));
        values.put(":fs", s(TimeBuckets.sortKey(now, seen.jobId(), seen.runId())));
        try {
            dynamo.updateItem(u -> u.tableName(table.name())
                    .key(key(seen.jobId(), seen.runId()))
                    .updateExpression("SET #st = :dead, #fa = :now, #u = :now, #err = :why, #x = :x, #os = :os,"
                            + " #fs = :fs REMOVE #le, #ds, #dk")
                    .conditionExpression(
                            "#a = :attempt AND (#st IN (:queued, :failed)" + " OR (#st = :running AND #le < :nowMs))")
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException moved) {
            return false;
        }
    }

    /** The dead-letter index partition of an owner's DEAD runs. */
    public static String deadPartition(String owner) {
        return owner + "#" + RunState.DEAD.name();
    }

    /** One page of an owner's DEAD runs through the sparse dead-letter index, most recently finished first. */
    public PageOfRuns listDead(String owner, int limit, Map<String, AttributeValue> startKey) {
        QueryResponse r = dynamo.query(b -> b.tableName(table.name())
                .indexName(Resources.RUNS_BY_OWNER_STATE)
                .keyConditionExpression("#p = :p")
                .expressionAttributeNames(Map.of("#p", Resources.OWNER_STATE))
                .expressionAttributeValues(Map.of(":p", s(deadPartition(owner))))
                .scanIndexForward(false)
                .limit(limit)
                .exclusiveStartKey(startKey == null || startKey.isEmpty() ? null : startKey));
        return new PageOfRuns(
                r.items().stream().map(RunRepository::fromItem).toList(),
                r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null);
    }

    /**
     * Re-drives a DEAD run: DEAD (at the attempt seen) → QUEUED with {@code maxAttempts} raised, out of the
     * dead-letter index and without its TTL, and back in the due index at the time its message must have brought
     * it back (as {@link #markQueued}), so a lost message is sent again. The attempt number is kept: the next
     * claim continues it, so it stays a fencing token. Loses if the run is not DEAD at that attempt any more.
     */
    public boolean redrive(String jobId, String runId, int seenAttempt, int maxAttempts, Instant now) {
        Instant attention =
                Transition.REDRIVE.attention(null, now, false, settings).orElseThrow();
        Map<String, String> names = new HashMap<>(Map.of(
                "#st",
                STATE,
                "#a",
                ATTEMPT,
                "#m",
                MAX_ATTEMPTS,
                "#q",
                QUEUED_AT,
                "#u",
                UPDATED_AT,
                "#ds",
                Resources.DUE_SHARD,
                "#dk",
                Resources.DUE_SORT,
                "#os",
                Resources.OWNER_STATE,
                "#fs",
                Resources.FINISHED_SORT,
                "#x",
                Resources.EXPIRES_AT));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(
                ":queued",
                s(RunState.QUEUED.name()),
                ":dead",
                s(RunState.DEAD.name()),
                ":attempt",
                n(seenAttempt),
                ":max",
                n(maxAttempts),
                ":now",
                instant(now),
                ":ds",
                s(buckets.partitionFor(attention, jobId, runId)),
                ":dk",
                s(TimeBuckets.sortKey(attention, jobId, runId))));
        try {
            dynamo.updateItem(u -> u.tableName(table.name())
                    .key(key(jobId, runId))
                    .updateExpression("SET #st = :queued, #m = :max, #q = :now, #u = :now, #ds = :ds, #dk = :dk"
                            + " REMOVE #os, #fs, #x")
                    .conditionExpression("#st = :dead AND #a = :attempt")
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException lost) {
            return false;
        }
    }

    private boolean update(
            String jobId,
            String runId,
            String updateExpression,
            Map<String, String> names,
            Map<String, AttributeValue> values,
            int attempt,
            String executorId) {
        Map<String, String> allNames = new HashMap<>(names);
        allNames.put("#st", STATE);
        allNames.put("#a", ATTEMPT);
        allNames.put("#lo", LEASE_OWNER);
        Map<String, AttributeValue> allValues = new HashMap<>(values);
        allValues.put(":running", s(RunState.RUNNING.name()));
        allValues.put(":attempt", n(attempt));
        allValues.put(":me", s(executorId));
        try {
            dynamo.updateItem(u -> u.tableName(table.name())
                    .key(key(jobId, runId))
                    .updateExpression(updateExpression)
                    .conditionExpression("#st = :running AND #a = :attempt AND #lo = :me")
                    .expressionAttributeNames(allNames)
                    .expressionAttributeValues(allValues));
            return true;
        } catch (ConditionalCheckFailedException fenced) {
            return false;
        }
    }

    private static void optional(
            StringBuilder set,
            List<String> remove,
            Map<String, String> names,
            Map<String, AttributeValue> values,
            String alias,
            String attribute,
            AttributeValue value) {
        names.put(alias, attribute);
        if (value == null) {
            remove.add(alias);
        } else {
            set.append(", ").append(alias).append(" = :").append(alias.substring(1));
            values.put(":" + alias.substring(1), value);
        }
    }

    private static Map<String, AttributeValue> key(String jobId, String runId) {
        return Map.of(Resources.JOB_ID, s(jobId), Resources.RUN_ID, s(runId));
    }

    public static Run fromItem(Map<String, AttributeValue> item) {
        Long lease = Items.longValue(item, LEASE_EXPIRY);
        return new Run(
                Items.str(item, Resources.JOB_ID),
                Items.str(item, Resources.RUN_ID),
                Items.str(item, OWNER),
                Items.instant(item, SCHEDULED_AT),
                RunState.valueOf(Items.str(item, STATE)),
                Items.integer(item, ATTEMPT),
                Items.integer(item, MAX_ATTEMPTS),
                Items.str(item, LEASE_OWNER),
                lease == null ? null : Instant.ofEpochMilli(lease),
                Items.integer(item, EXIT_CODE),
                Items.instant(item, STARTED_AT),
                Items.instant(item, FINISHED_AT),
                Items.str(item, ERROR),
                Items.str(item, LOG_KEY),
                Items.instant(item, CREATED_AT),
                Items.instant(item, OCCURRENCE),
                Items.instant(item, QUEUED_AT),
                Items.instant(item, LAUNCHED_AT));
    }
}
