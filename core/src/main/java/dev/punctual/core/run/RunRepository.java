package dev.punctual.core.run;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;
import static dev.punctual.core.run.RunItems.ATTEMPT;
import static dev.punctual.core.run.RunItems.ERROR;
import static dev.punctual.core.run.RunItems.EXIT_CODE;
import static dev.punctual.core.run.RunItems.FINISHED_AT;
import static dev.punctual.core.run.RunItems.GIVEN_BACK;
import static dev.punctual.core.run.RunItems.LAUNCHED_AT;
import static dev.punctual.core.run.RunItems.LEASE_EXPIRY;
import static dev.punctual.core.run.RunItems.LEASE_OWNER;
import static dev.punctual.core.run.RunItems.LOG;
import static dev.punctual.core.run.RunItems.LOG_KEY;
import static dev.punctual.core.run.RunItems.MAX_ATTEMPTS;
import static dev.punctual.core.run.RunItems.OCCURRENCE;
import static dev.punctual.core.run.RunItems.PAST;
import static dev.punctual.core.run.RunItems.QUEUED_AT;
import static dev.punctual.core.run.RunItems.REDRIVEN_AT;
import static dev.punctual.core.run.RunItems.SCHEDULED_AT;
import static dev.punctual.core.run.RunItems.STARTED_AT;
import static dev.punctual.core.run.RunItems.STATE;
import static dev.punctual.core.run.RunItems.UPDATED_AT;
import static dev.punctual.core.run.RunItems.WAITING;

import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.BatchReads;
import dev.punctual.core.infra.BatchWrites;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.PageKey;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementError;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementErrorCodeEnum;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
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
 * <p>A run's item changes only through a {@link Change}: the {@link Transition} it names gives the states the write
 * may start from, its fence, its due-index entry and its TTL, and {@link #compose} adds what each transition writes
 * besides. Each is one conditional write that wins or loses. Losing is a normal outcome of a race (two sweepers,
 * two executors, a delete) and is reported, with the run as the write found it, never thrown.
 */
public final class RunRepository {
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

    /** What a write came to: won, or lost with the run as the write found it ({@code found} null: no item). */
    public record Result(boolean won, Run found) {
        static final Result WON = new Result(true, null);
    }

    /** Applies {@code change} on its own; a lost condition is reported with the run as it was. */
    public Result apply(Change change) {
        if (change.transition().fromAbsent()) {
            throw new IllegalArgumentException(change.transition() + " creates the run: write it in a transaction");
        }
        try {
            dynamo.updateItem(compose(change).updateRequest());
            return Result.WON;
        } catch (ConditionalCheckFailedException lost) {
            return new Result(false, RunItems.fromItem(lost.item()));
        }
    }

    /**
     * {@link #apply}, and a won write comes back with the run as it wrote it ({@code found}): a claim learns its
     * attempt without reading the run again.
     */
    public Result applyReturningNew(Change change) {
        try {
            var r = dynamo.updateItem(compose(change).updateRequest().toBuilder()
                    .returnValues(ReturnValue.ALL_NEW)
                    .build());
            return new Result(true, RunItems.fromItem(r.attributes()));
        } catch (ConditionalCheckFailedException lost) {
            return new Result(false, RunItems.fromItem(lost.item()));
        }
    }

    /** The most statements one {@code BatchExecuteStatement} takes. */
    public static final int MAX_BATCH = 25;

    /** One change's part of {@link #applyAll}: its result, or why its statement failed ({@code error}). */
    public record Applied(Result result, RuntimeException error) {}

    /**
     * {@link #apply} (or {@link #applyReturningNew} where {@code returningNew} says so) of up to {@link #MAX_BATCH}
     * changes of different runs in one call: {@code BatchExecuteStatement}, whose statements each keep their own
     * condition and win or lose on their own, as the same writes made one by one would (and at their price). The
     * answers come in the changes' order; a statement that failed for another reason than its condition (throttled,
     * say) carries its error, to be tried again by its caller as a failed call would be.
     */
    public List<Applied> applyAll(List<Change> changes, List<Boolean> returningNew) {
        if (changes.size() > MAX_BATCH || changes.size() != returningNew.size()) {
            throw new IllegalArgumentException(changes.size() + " changes, " + returningNew.size() + " flags");
        }
        List<BatchStatementRequest> statements = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            Change c = changes.get(i);
            if (c.transition().fromAbsent()) {
                throw new IllegalArgumentException(c.transition() + " creates the run: write it in a transaction");
            }
            RunWrite.Statement st = compose(c).statement(returningNew.get(i));
            statements.add(BatchStatementRequest.builder()
                    .statement(st.text())
                    .parameters(st.parameters())
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .build());
        }
        var responses =
                dynamo.batchExecuteStatement(b -> b.statements(statements)).responses();
        List<Applied> out = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            BatchStatementResponse r = responses.get(i);
            BatchStatementError e = r.error();
            if (e == null) {
                out.add(new Applied(
                        returningNew.get(i) ? new Result(true, RunItems.fromItem(r.item())) : Result.WON, null));
            } else if (e.code() == BatchStatementErrorCodeEnum.CONDITIONAL_CHECK_FAILED) {
                out.add(new Applied(new Result(false, RunItems.fromItem(e.item())), null));
            } else {
                out.add(new Applied(
                        null,
                        DynamoDbException.builder()
                                .message(e.codeAsString() + ": " + e.message())
                                .build()));
            }
        }
        return out;
    }

    /**
     * {@code change} as one item of a transaction (with the job's write it belongs with). A transition that creates
     * the run goes through {@link #create}: kept apart, so code that only moves runs on (the executor) never reaches
     * a put, and its IAM role needs none (infra-tests derive the roles' actions from the compiled code).
     */
    public Transactions.Write write(Change change) {
        if (change.transition().fromAbsent()) {
            throw new IllegalArgumentException(change.transition() + " creates the run: use create");
        }
        return new Transactions.Write(compose(change).updateItem());
    }

    /** A new run (SCHEDULE, SCHEDULE_OVER_CANCELLED) as one item of a transaction: a put under the row's condition. */
    public Transactions.Write create(Change change) {
        if (!change.transition().fromAbsent()) {
            throw new IllegalArgumentException(change.transition() + " does not create a run: use write");
        }
        return new Transactions.Write(compose(change).putItem(RunItems.scheduled(change.seen())));
    }

    /**
     * Creates runs of jobs not written yet ({@code JobService}): each change from no run, a fresh run id under a
     * fresh job id, so the put's condition cannot fail and is left out, at a plain write's price.
     */
    public void createAll(List<Change> changes) {
        BatchWrites.putNew(
                dynamo::batchWriteItem,
                table.name(),
                changes.stream().map(this::create).toList());
    }

    /** Removes runs written by {@link #createAll} whose job's creation is being undone. */
    public void deleteNew(List<Run> created) {
        BatchWrites.delete(
                dynamo::batchWriteItem,
                table.name(),
                created.stream().map(r -> RunItems.key(r.jobId(), r.runId())).toList());
    }

    /** The one conditional write a change is: the transition's row, then what it writes besides. */
    private RunWrite compose(Change c) {
        Transition t = c.transition();
        RunWrite w = new RunWrite(table.name(), RunItems.key(c.jobId(), c.runId()));
        switch (t.fence()) {
            case NONE -> w.require(stateCondition(t, w, c.now()));
            case SEEN_ATTEMPT -> w.require(stateCondition(t, w, c.now())).require(attemptIs(w, c));
            case SEEN_STATE_AND_ATTEMPT -> {
                RunState seen = c.seen().state();
                if (!t.allows(seen, true) && !t.allows(seen, false)) {
                    throw new IllegalArgumentException(t + " does not start from " + seen);
                }
                // The state read, whichever of the transition's it is: the write only moves the index entry, and
                // loses if anyone moved the run on since.
                w.require(w.name(STATE) + " = " + w.value(s(seen.name()))).require(attemptIs(w, c));
            }
            case OWN_ATTEMPT ->
                w.require(stateCondition(t, w, c.now()))
                        .require(attemptIs(w, c))
                        .require(w.name(LEASE_OWNER) + " = " + w.value(s(c.executorId())));
            case DUE_AND_ATTEMPTS_LEFT -> {
                // maxAttempts bounds the attempts that start: an attempt whose executor died without an outcome
                // counted too, and with none left the executor ends the run instead (LostClaims.lostRun).
                String max = w.name(MAX_ATTEMPTS);
                String attempt = w.name(ATTEMPT);
                w.require(w.name(SCHEDULED_AT) + " <= " + w.value(s(dueBound(c.now()))))
                        .require("attribute_not_exists(" + max + ") OR " + attempt + " < " + max)
                        .require(stateCondition(t, w, c.now()));
            }
        }
        t.to().ifPresent(to -> {
            w.set(STATE, s(to.name()));
            if (!t.fromAbsent()) {
                w.set(UPDATED_AT, instant(c.now()));
            }
        });
        if (t.index() != Transition.Index.UNCHANGED && t.index() != Transition.Index.NONE) {
            t.attention(c.run(), c.now(), settings)
                    .ifPresentOrElse(
                            at -> w.set(Resources.DUE_SHARD, s(buckets.partitionFor(at, c.jobId(), c.runId())))
                                    .set(Resources.DUE_SORT, s(TimeBuckets.sortKey(at, c.jobId(), c.runId()))),
                            () -> w.remove(Resources.DUE_SHARD, Resources.DUE_SORT));
        }
        if (t.startsTtl()) {
            w.set(Resources.EXPIRES_AT, n(c.now().plus(settings.retention()).getEpochSecond()));
        }
        if (t.endsLease()) {
            w.remove(LEASE_EXPIRY);
        }
        if (t.to().filter(to -> to == RunState.DEAD).isPresent()) {
            // Into the sparse dead-letter index, newest last by finish time.
            w.set(Resources.OWNER_STATE, s(deadPartition(c.seen().owner())))
                    .set(Resources.FINISHED_SORT, s(TimeBuckets.sortKey(c.now(), c.jobId(), c.runId())));
        }
        effects(c, w);
        return w;
    }

    private static String attemptIs(RunWrite w, Change c) {
        return w.name(ATTEMPT) + " = " + w.value(n(c.fencingAttempt()));
    }

    /** What each transition writes beyond its row. */
    private static void effects(Change c, RunWrite w) {
        Instant now = c.now();
        switch (c.transition()) {
            case SCHEDULE, SCHEDULE_OVER_CANCELLED, RESEND, LOOK_AFTER_LEASE -> {}
            case RESCHEDULE ->
                w.set(SCHEDULED_AT, instant(c.seen().scheduledAt()))
                        .set(OCCURRENCE, instant(c.seen().occurrence()))
                        .set(MAX_ATTEMPTS, n(c.seen().maxAttempts()));
            case MARK_QUEUED, ENQUEUE -> w.set(QUEUED_AT, instant(now));
            // attempt + 1 is the new fencing token. A new attempt has no log yet: the previous attempt's must not
            // pass for this one's if its upload fails.
            case CLAIM ->
                w.add(ATTEMPT, 1)
                        .set(LEASE_OWNER, s(c.executorId()))
                        .set(LEASE_EXPIRY, n(c.leaseExpiry().toEpochMilli()))
                        .remove(EXIT_CODE, FINISHED_AT, ERROR, LOG_KEY, LOG, LAUNCHED_AT, STARTED_AT, WAITING);
            case HEARTBEAT -> w.set(LEASE_EXPIRY, n(c.leaseExpiry().toEpochMilli()));
            // The start is the launch's (a run is claimed up to CLAIM_AHEAD before its instant, and launched at it);
            // a claimed run not launched yet has none.
            case LAUNCH ->
                w.set(LEASE_EXPIRY, n(c.leaseExpiry().toEpochMilli()))
                        .set(LAUNCHED_AT, instant(now))
                        .set(STARTED_AT, instant(now));
            case SUCCEED, FAIL, RELEASE, DIE -> {
                if (c.startedAt() != null) {
                    // The binary's start: the launch wrote the same already, unless the binary ended before its
                    // launch was written, when the outcome is the only write of it (Settlement.record).
                    w.set(LAUNCHED_AT, instant(c.startedAt())).set(STARTED_AT, instant(c.startedAt()));
                }
                if (c.transition() == Transition.FAIL || c.transition() == Transition.RELEASE) {
                    // A retry follows, whose claim replaces these facts: kept as the attempt's history.
                    w.set(
                            PAST + c.fencingAttempt(),
                            RunItems.past(c.startedAt(), now, c.exitCode(), c.error(), c.executorId()));
                }
                w.set(FINISHED_AT, instant(now))
                        .setOrRemove(EXIT_CODE, c.exitCode() == null ? null : n(c.exitCode()))
                        .setOrRemove(ERROR, c.error() == null ? null : s(c.error()));
                if (c.logKey() != null) {
                    w.set(LOG_KEY, s(c.logKey())).remove(LOG);
                } else if (c.log() != null) {
                    w.set(LOG, s(c.log())).remove(LOG_KEY);
                }
                if (c.transition() == Transition.RELEASE) {
                    // A release does not use an attempt up.
                    w.add(MAX_ATTEMPTS, 1);
                }
            }
            case GIVE_BACK -> {
                // At most MAX_GIVE_BACKS a run: a binary that brings its executor down before its launch is
                // written, every time (one that exhausts the host's memory, say), would otherwise be given back
                // and run again until the run's maxRunAge. Past them the claim that lost ends the run DEAD.
                String given = w.name(GIVEN_BACK);
                w.require("attribute_not_exists(" + w.name(LAUNCHED_AT) + ")")
                        .require("attribute_not_exists(" + given + ") OR " + given + " < " + w.value(n(MAX_GIVE_BACKS)))
                        .add(MAX_ATTEMPTS, 1)
                        .count(GIVEN_BACK)
                        .set(ERROR, s(c.error()));
            }
            case CANCEL_SCHEDULED -> w.set(ERROR, s(c.error()));
            // The claim is undone as well as ended: its binary never started, so the run reads as one that was
            // never claimed (attempt, start and executor as before it). Safe for fencing: the run is terminal.
            case WITHDRAW ->
                w.add(ATTEMPT, -1)
                        .set(FINISHED_AT, instant(now))
                        .set(ERROR, s(c.error()))
                        .remove(STARTED_AT, LEASE_OWNER, LAUNCHED_AT);
            case CANCEL_UNSTARTED, SKIP_OVERLAPPING, SKIP_MISSED, DEAD_LETTER ->
                w.set(FINISHED_AT, instant(now)).set(ERROR, s(c.error()));
            // Out of the dead-letter index and without its TTL; the attempt number is kept: the next claim
            // continues it, so it stays a fencing token. Its give-backs start afresh with its new attempts.
            case REDRIVE -> {
                w.set(MAX_ATTEMPTS, n(c.maxAttempts()))
                        .set(QUEUED_AT, instant(now))
                        .set(REDRIVEN_AT, instant(now))
                        .remove(Resources.OWNER_STATE, Resources.FINISHED_SORT, Resources.EXPIRES_AT, GIVEN_BACK);
                Run seen = c.run();
                if (seen != null) {
                    // The dead attempt's facts, which the next claim replaces, join its history; the oldest past
                    // RunHistory.KEPT are dropped, so retries by hand cannot grow the item without bound.
                    w.set(
                            PAST + seen.attempt(),
                            RunItems.past(
                                    seen.startedAt(),
                                    seen.finishedAt(),
                                    seen.exitCode(),
                                    seen.error(),
                                    seen.leaseOwner()));
                    List<RunHistory.PastAttempt> kept = seen.history().attempts();
                    for (int i = 0; i < kept.size() + 1 - RunHistory.KEPT; i++) {
                        if (kept.get(i).attempt() != seen.attempt()) {
                            w.remove(PAST + kept.get(i).attempt());
                        }
                    }
                }
            }
            case WAIT -> w.set(WAITING, s(c.error()));
            case UNINDEX -> w.require("attribute_exists(" + w.name(Resources.DUE_SHARD) + ")");
        }
    }

    /**
     * The states the transition may start from: no item, one of its states, or RUNNING under an expired lease
     * (the executor died or froze).
     */
    private static String stateCondition(Transition t, RunWrite w, Instant now) {
        List<String> any = new ArrayList<>();
        if (t.fromAbsent()) {
            any.add("attribute_not_exists(" + w.name(Resources.RUN_ID) + ")");
        }
        String st = w.name(STATE);
        if (t.from().size() == 1) {
            any.add(st + " = " + w.value(s(t.from().iterator().next().name())));
        } else if (!t.from().isEmpty()) {
            any.add(st + " IN ("
                    + Arrays.stream(RunState.values())
                            .filter(t.from()::contains)
                            .map(state -> w.value(s(state.name())))
                            .collect(Collectors.joining(", "))
                    + ")");
        }
        if (t.fromExpiredLease()) {
            any.add(st + " = " + w.value(s(RunState.RUNNING.name())) + " AND " + w.name(LEASE_EXPIRY) + " < "
                    + w.value(n(now.toEpochMilli())));
        }
        return any.size() == 1
                ? any.get(0)
                : any.stream().map(a -> a.contains(" AND ") ? "(" + a + ")" : a).collect(Collectors.joining(" OR "));
    }

    public Optional<Run> get(String jobId, String runId) {
        var item = dynamo.getItem(b -> b.tableName(table.name())
                        .key(RunItems.key(jobId, runId))
                        .consistentRead(true))
                .item();
        return Optional.ofNullable(RunItems.fromItem(item));
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
        return entriesIn(partition, upTo).runs();
    }

    /** What a partition of the due index holds: runs that want attention, and jobs' watches ({@link WatchRepository}). */
    public record Entries(List<Attention> runs, List<WatchRepository.Watch> watches) {}

    /** {@link #attentionIn}, and the watches whose deadlines are in the partition up to {@code upTo}. */
    public Entries entriesIn(String partition, Instant upTo) {
        List<Attention> out = new ArrayList<>();
        List<WatchRepository.Watch> watches = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        do {
            Map<String, AttributeValue> from = start;
            QueryResponse r = dynamo.query(b -> b.tableName(table.name())
                    .indexName(Resources.RUNS_BY_DUE)
                    .keyConditionExpression("#p = :p AND #s <= :upTo")
                    .expressionAttributeNames(Map.of("#p", Resources.DUE_SHARD, "#s", Resources.DUE_SORT))
                    .expressionAttributeValues(Map.of(":p", s(partition), ":upTo", s(TimeBuckets.sortUpperBound(upTo))))
                    .exclusiveStartKey(from));
            // The index holds keys only: the runs are read by key. Both are eventually consistent: states seen
            // here may lag; every write acting on them is conditional on the base item. A run read with another
            // entry than the one queried (moved or removed since: marked, finished) is not paired with the old
            // entry's time, which would make a freshly queued run look lost; it is found at its new time.
            List<Map<String, AttributeValue>> keys = new ArrayList<>();
            for (Map<String, AttributeValue> entry : r.items()) {
                keys.add(RunItems.key(Items.str(entry, Resources.JOB_ID), Items.str(entry, Resources.RUN_ID)));
            }
            Set<String> entries = r.items().stream()
                    .map(e -> Items.str(e, Resources.DUE_SORT))
                    .collect(Collectors.toSet());
            for (Map<String, AttributeValue> item : BatchReads.get(dynamo::batchGetItem, table.name(), keys)) {
                String sort = Items.str(item, Resources.DUE_SORT);
                if (sort == null || !entries.contains(sort)) {
                    continue;
                }
                if (WatchRepository.isWatch(item)) {
                    watches.add(WatchRepository.fromItem(item));
                } else {
                    out.add(new Attention(RunItems.fromItem(item), TimeBuckets.attentionOf(sort)));
                }
            }
            start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
        } while (start != null);
        return new Entries(out, watches);
    }

    /**
     * When the latest success of {@code jobId} that finished after {@code after} and no later than {@code upTo}
     * finished, among its runs due from {@code dueFrom} on (a run finishes after it is due: the caller bounds how
     * long before a window a run that finished in it may have been due). Read strongly, newest runs first, a page at
     * a time until one holds such a success; its latest is taken (a run due earlier that finished later still is
     * found by the next window's read, which starts after this one).
     */
    public Optional<Instant> lastSuccess(String jobId, Instant dueFrom, Instant after, Instant upTo) {
        Map<String, AttributeValue> start = null;
        do {
            Map<String, AttributeValue> from = start;
            QueryResponse r = dynamo.query(b -> b.tableName(table.name())
                    .keyConditionExpression("#j = :j AND #r BETWEEN :lo AND :hi")
                    .filterExpression("#st = :ok")
                    .projectionExpression("#f")
                    .expressionAttributeNames(
                            Map.of("#j", Resources.JOB_ID, "#r", Resources.RUN_ID, "#st", STATE, "#f", FINISHED_AT))
                    .expressionAttributeValues(Map.of(
                            ":j", s(jobId),
                            ":lo", s(RunIds.forOccurrence(dueFrom)),
                            ":hi", s("~"),
                            ":ok", s(RunState.SUCCEEDED.name())))
                    .scanIndexForward(false)
                    .consistentRead(true)
                    .exclusiveStartKey(from));
            Optional<Instant> latest = r.items().stream()
                    .map(i -> Items.instant(i, FINISHED_AT))
                    .filter(f -> f != null && f.isAfter(after) && !f.isAfter(upTo))
                    .max(Instant::compareTo);
            if (latest.isPresent()) {
                return latest;
            }
            start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
        } while (start != null);
        return Optional.empty();
    }

    /**
     * How early before its due time a claim may still win: the executor claims a run up to half a second ahead
     * ({@code RunWorker.CLAIM_AHEAD}) and launches it only at its instant, so the condition only has to stop a
     * message that comes (or is sent) early. (Whole seconds: a run due at a whole second is claimable from the
     * second before.)
     */
    public static final Duration CLAIM_TOLERANCE = Duration.ofSeconds(2);

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
     * A condition that the run {@code runId} of the job is not RUNNING under a live lease: part of the claim of a
     * job whose runs must not overlap. The run as it was comes back on failure.
     */
    public Transactions.Write conditionNotRunning(String jobId, String runId, Instant now) {
        return new Transactions.Write(TransactWriteItem.builder()
                .conditionCheck(c -> c.tableName(table.name())
                        .key(RunItems.key(jobId, runId))
                        .conditionExpression("attribute_not_exists(#st) OR #st <> :running OR #le < :nowMs")
                        .expressionAttributeNames(Map.of("#st", STATE, "#le", LEASE_EXPIRY))
                        .expressionAttributeValues(
                                Map.of(":running", s(RunState.RUNNING.name()), ":nowMs", n(now.toEpochMilli())))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build());
    }

    /**
     * How long after its instant a run claimed ahead of it may still be let start on the strength of its job's check
     * after the claim. An executor that gets there later reads the job again first (as a run claimed late does).
     */
    public static final Duration RELEASE_WINDOW = Duration.ofMillis(250);

    /** How many attempts of one run may be given back unlaunched ({@link Transition#GIVE_BACK}). */
    public static final int MAX_GIVE_BACKS = 3;

    /** How far the clocks of the API and the executors may be apart, for {@link #startsCommittedUntil}. */
    public static final Duration CLOCK_SKEW = Duration.ofMillis(250);

    /**
     * Until when a run of the job may still start that a delete or pause landing now no longer stops: the latest
     * instant, plus {@link #RELEASE_WINDOW} and {@link #CLOCK_SKEW}, of the job's runs claimed ahead of their instant
     * and not launched yet. Their executors checked the job after the claim and let the binary start at its instant
     * with no store call in between; a delete or pause answers only after this, so that no run starts after the
     * answer. Empty when there is none (the usual case). A strongly consistent query of the job's runs due around
     * now (run ids are due instants, in time order; a trigger's id is its instant and a suffix).
     */
    public Optional<Instant> startsCommittedUntil(String jobId, Instant now) {
        Duration after = RELEASE_WINDOW.plus(CLOCK_SKEW);
        String from = RunIds.forOccurrence(now.minus(after));
        // '~' sorts after every character of an id's suffix.
        String to = RunIds.forOccurrence(now.plus(CLAIM_TOLERANCE).plus(CLOCK_SKEW)) + "~";
        Optional<Instant> latest = Optional.empty();
        Map<String, AttributeValue> start = null;
        do {
            Map<String, AttributeValue> key = start;
            QueryResponse r = dynamo.query(b -> b.tableName(table.name())
                    .consistentRead(true)
                    .keyConditionExpression("#j = :j AND #r BETWEEN :from AND :to")
                    .filterExpression("#st = :running AND attribute_not_exists(#la)")
                    .expressionAttributeNames(
                            Map.of("#j", Resources.JOB_ID, "#r", Resources.RUN_ID, "#st", STATE, "#la", LAUNCHED_AT))
                    .expressionAttributeValues(Map.of(
                            ":j", s(jobId),
                            ":from", s(from),
                            ":to", s(to),
                            ":running", s(RunState.RUNNING.name())))
                    .exclusiveStartKey(key));
            for (Map<String, AttributeValue> item : r.items()) {
                Instant until = RunItems.fromItem(item).scheduledAt().plus(after);
                if (latest.isEmpty() || until.isAfter(latest.get())) {
                    latest = Optional.of(until);
                }
            }
            start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
        } while (start != null);
        return latest.filter(now::isBefore);
    }

    /** One page of a job's runs, newest first. */
    public PageOfRuns listForJob(String jobId, int limit, PageKey startKey) {
        return listForJob(jobId, limit, startKey, RunRange.ALL);
    }

    /**
     * Which runs of a job: due from {@code from} to {@code to} (inclusive, null: unbounded), in one of
     * {@code states} (empty: any).
     */
    public record RunRange(Instant from, Instant to, Set<RunState> states) {
        public static final RunRange ALL = new RunRange(null, null, Set.of());

        public RunRange {
            states = Set.copyOf(states);
        }
    }

    /**
     * One page of a job's runs in {@code range}, newest first. The range of due times is part of the key (a run's
     * id is its due instant, an extra run's with a suffix); the states are a filter, applied after the page's
     * {@code limit} items are read, so a page may hold fewer (even none) and still have a next one.
     */
    public PageOfRuns listForJob(String jobId, int limit, PageKey startKey, RunRange range) {
        Map<String, String> names = new HashMap<>(Map.of("#j", Resources.JOB_ID));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":j", s(jobId)));
        String key = "#j = :j";
        if (range.from() != null || range.to() != null) {
            names.put("#r", Resources.RUN_ID);
            values.put(":lo", s(RunIds.lowerBound(range.from())));
            values.put(":hi", s(RunIds.upperBound(range.to())));
            key += " AND #r BETWEEN :lo AND :hi";
        }
        String filter = null;
        if (!range.states().isEmpty()) {
            names.put("#st", STATE);
            List<String> in = new ArrayList<>();
            for (RunState st : range.states()) {
                String v = ":st" + in.size();
                values.put(v, s(st.name()));
                in.add(v);
            }
            filter = "#st IN (" + String.join(", ", in) + ")";
        }
        String keyCondition = key;
        String stateFilter = filter;
        QueryResponse r = dynamo.query(b -> b.tableName(table.name())
                .keyConditionExpression(keyCondition)
                .filterExpression(stateFilter)
                .expressionAttributeNames(names)
                .expressionAttributeValues(values)
                .scanIndexForward(false)
                .limit(limit)
                .exclusiveStartKey(PageKey.startOf(startKey)));
        return page(r);
    }

    public record PageOfRuns(List<Run> items, PageKey lastKey) {}

    /** The dead-letter index partition of an owner's DEAD runs. */
    public static String deadPartition(String owner) {
        return owner + "#" + RunState.DEAD.name();
    }

    /** One page of an owner's DEAD runs through the sparse dead-letter index, most recently finished first. */
    public PageOfRuns listDead(String owner, int limit, PageKey startKey) {
        QueryResponse r = dynamo.query(b -> b.tableName(table.name())
                .indexName(Resources.RUNS_BY_OWNER_STATE)
                .keyConditionExpression("#p = :p")
                .expressionAttributeNames(Map.of("#p", Resources.OWNER_STATE))
                .expressionAttributeValues(Map.of(":p", s(deadPartition(owner))))
                .scanIndexForward(false)
                .limit(limit)
                .exclusiveStartKey(PageKey.startOf(startKey)));
        return page(r);
    }

    private static PageOfRuns page(QueryResponse r) {
        return new PageOfRuns(r.items().stream().map(RunItems::fromItem).toList(), PageKey.after(r));
    }
}
