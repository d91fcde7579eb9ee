package dev.punctual.core.run;

import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;
import static dev.punctual.core.run.RunItems.LEASE_EXPIRY;
import static dev.punctual.core.run.RunItems.STATE;

import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.BatchWrites;
import dev.punctual.core.infra.PageKey;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementError;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementErrorCodeEnum;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The runs table's protocol, including its due index: each of its operations is named here. The due index
 * (attributes {@code dueShard}/{@code dueSort}) holds every unfinished run at the time it next needs the sweeper's
 * attention: a SCHEDULED run at its due time (send it); a QUEUED or FAILED run when its message should long have
 * brought it back (send it again: the message was lost); a run an executor holds, when its lease should long
 * have been renewed (send it again: the executor died). Finished runs leave the index. The claim does not touch
 * the entry, so a run claimed straight from SCHEDULED (its message beat the mark) is still found at its due time
 * and its job's next occurrence is written then; otherwise a crash between send and mark would end a recurring
 * job.
 *
 * <p>A run's item changes only through a {@link Change}: the {@link Transition} it names gives the states the write
 * may start from, its fence, its due-index entry and its TTL, and {@link ChangeWrites#compose} adds what each
 * transition writes besides. Each is one conditional write that wins or loses. Losing is a normal outcome of a race
 * (two sweepers, two executors, a delete) and is reported, with the run as the write found it, never thrown.
 *
 * <p>Beside it in this package: how a change becomes its write ({@link ChangeWrites}: each transition's condition
 * and what it writes), the queries behind its reads of the table and its indexes ({@link RunQueries}), a write's
 * clauses ({@link RunWrite}), the item's attributes ({@link RunItems}), an owner's runs across their jobs
 * ({@link RunSearch}) and a job's watch ({@link WatchRepository}).
 */
public final class RunRepository {
    private final DynamoDbClient dynamo;
    private final TableSpec table;
    private final ChangeWrites writes;
    private final RunQueries queries;

    public RunRepository(DynamoDbClient dynamo, Resources resources, TimeBuckets buckets, Settings settings) {
        this.dynamo = dynamo;
        this.table = resources.runs();
        this.writes = new ChangeWrites(resources, buckets, settings);
        this.queries = new RunQueries(dynamo, resources);
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
            dynamo.updateItem(writes.compose(change).updateRequest());
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
            var r = dynamo.updateItem(writes.compose(change).updateRequest().toBuilder()
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
            RunWrite.Statement st = writes.compose(c).statement(returningNew.get(i));
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
        return new Transactions.Write(writes.compose(change).updateItem());
    }

    /** A new run (SCHEDULE, SCHEDULE_OVER_CANCELLED) as one item of a transaction: a put under the row's condition. */
    public Transactions.Write create(Change change) {
        if (!change.transition().fromAbsent()) {
            throw new IllegalArgumentException(change.transition() + " does not create a run: use write");
        }
        return new Transactions.Write(writes.compose(change).putItem(RunItems.scheduled(change.seen())));
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
        return queries.entriesIn(partition, upTo);
    }

    /**
     * When the latest success of {@code jobId} that finished after {@code after} and no later than {@code upTo}
     * finished, among its runs due from {@code dueFrom} on (a run finishes after it is due: the caller bounds how
     * long before a window a run that finished in it may have been due).
     */
    public Optional<Instant> lastSuccess(String jobId, Instant dueFrom, Instant after, Instant upTo) {
        return queries.lastSuccess(jobId, dueFrom, after, upTo);
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
     * answer. Empty when there is none (the usual case).
     */
    public Optional<Instant> startsCommittedUntil(String jobId, Instant now) {
        return queries.startsCommittedUntil(jobId, now);
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
        return queries.listForJob(jobId, limit, startKey, range);
    }

    public record PageOfRuns(List<Run> items, PageKey lastKey) {}

    /** The dead-letter index partition of an owner's DEAD runs. */
    public static String deadPartition(String owner) {
        return owner + "#" + RunState.DEAD.name();
    }

    /**
     * What a cursor of {@link #listForJob} may hold for {@code jobId}'s runs, {@code runId} checking the run id (as
     * {@link JobRepository#ownerCursor} says for jobs).
     */
    public static Map<String, Predicate<String>> jobCursor(String jobId, Predicate<String> runId) {
        return Map.of(Resources.JOB_ID, jobId::equals, Resources.RUN_ID, runId);
    }

    /** What a cursor of {@link #listDead} may hold for {@code owner}, the ids checked by {@code jobId} and {@code runId}. */
    public static Map<String, Predicate<String>> deadCursor(
            String owner, Predicate<String> jobId, Predicate<String> runId) {
        return Map.of(
                Resources.JOB_ID,
                jobId,
                Resources.RUN_ID,
                runId,
                Resources.OWNER_STATE,
                deadPartition(owner)::equals,
                Resources.FINISHED_SORT,
                sort -> true);
    }

    /** One page of an owner's DEAD runs through the sparse dead-letter index, most recently finished first. */
    public PageOfRuns listDead(String owner, int limit, PageKey startKey) {
        return queries.listDead(owner, limit, startKey);
    }
}
