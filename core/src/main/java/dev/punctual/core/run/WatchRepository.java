package dev.punctual.core.run;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.BatchWrites;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.time.TimeBuckets;
import dev.punctual.core.time.Window;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * A job's watch: the check of its expectation ({@code job.Expectation}), an item of the runs table kept apart from
 * its runs ({@code jobId = <job>#watch}, {@code runId = watch}: no query of the job's runs meets it), with an entry
 * in the due index at its deadline. The sweeper, which reads that index every minute anyway, finds it when the
 * deadline has come ({@link RunRepository#entriesIn}). Runs never write it: a success costs nothing more than it
 * did; the check reads the job's recent runs once per window instead ({@link RunRepository#lastSuccess}).
 *
 * <p>One item per job, replaced whole whenever the expectation is set again (a create, a changed expectation, a
 * resume): a sweeper that checked the old one moves it on only if its entry is still the one it read, so a window
 * the API has just replaced is never overwritten by a check of the old one.
 */
public final class WatchRepository {
    static final String SUFFIX = "#watch";
    static final String RUN_ID = "watch";
    static final String SINCE = "since";
    static final String DEADLINE = "deadline";

    private final DynamoDbClient dynamo;
    private final TableSpec table;
    private final TimeBuckets buckets;

    public WatchRepository(DynamoDbClient dynamo, Resources resources, TimeBuckets buckets) {
        this.dynamo = dynamo;
        this.table = resources.runs();
        this.buckets = buckets;
    }

    /** A watch as the sweeper found it: its job, its window, and its due-index entry (what a move is fenced on). */
    public record Watch(String jobId, Window window, String entry) {}

    /** The item of {@code jobId}'s watch over {@code window}, replacing any watch of the job: for a transaction. */
    public Transactions.Write arm(String jobId, Window window) {
        return new Transactions.Write(TransactWriteItem.builder()
                .put(p -> p.tableName(table.name()).item(item(jobId, window)))
                .build());
    }

    /** Writes the watches of new jobs ({@link #arm}s of fresh ids), a plain write each. */
    public void armAll(List<Transactions.Write> arms) {
        if (!arms.isEmpty()) {
            BatchWrites.putNew(dynamo::batchWriteItem, table.name(), arms);
        }
    }

    /** Removes {@code jobId}'s watch, if any: for a transaction (a job deleted, or its expectation removed). */
    public Transactions.Write disarm(String jobId) {
        return new Transactions.Write(TransactWriteItem.builder()
                .delete(d -> d.tableName(table.name()).key(key(jobId)))
                .build());
    }

    /** Moves {@code seen} on to {@code next}, if it is still as seen; whether it was. */
    public boolean move(Watch seen, Window next) {
        return ifStillAsSeen(
                seen,
                (condition, names, values) -> dynamo.putItem(b -> b.tableName(table.name())
                        .item(item(seen.jobId(), next))
                        .conditionExpression(condition)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values)));
    }

    /** Removes {@code seen} (its job gone, or no deadline left), if it is still as seen; whether it was. */
    public boolean end(Watch seen) {
        return ifStillAsSeen(
                seen,
                (condition, names, values) -> dynamo.deleteItem(b -> b.tableName(table.name())
                        .key(key(seen.jobId()))
                        .conditionExpression(condition)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values)));
    }

    private interface ConditionalWrite {
        void write(String condition, Map<String, String> names, Map<String, AttributeValue> values);
    }

    /** {@code write}, conditional on the watch's due-index entry being the one {@code seen} read. */
    private static boolean ifStillAsSeen(Watch seen, ConditionalWrite write) {
        try {
            write.write("#e = :seen", Map.of("#e", Resources.DUE_SORT), Map.of(":seen", s(seen.entry())));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    /** The job's watch, read strongly (tests and tools). */
    public Optional<Watch> get(String jobId) {
        var item = dynamo.getItem(b -> b.tableName(table.name()).key(key(jobId)).consistentRead(true))
                .item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(fromItem(item));
    }

    /** Whether an item of the runs table is a watch rather than a run. */
    static boolean isWatch(Map<String, AttributeValue> item) {
        String id = Items.str(item, Resources.JOB_ID);
        return id != null && id.endsWith(SUFFIX);
    }

    static Watch fromItem(Map<String, AttributeValue> item) {
        String id = Items.str(item, Resources.JOB_ID);
        return new Watch(
                id.substring(0, id.length() - SUFFIX.length()),
                new Window(Items.instant(item, SINCE), Items.instant(item, DEADLINE)),
                Items.str(item, Resources.DUE_SORT));
    }

    private Map<String, AttributeValue> item(String jobId, Window window) {
        Map<String, AttributeValue> item = new HashMap<>(key(jobId));
        String id = jobId + SUFFIX;
        item.put(SINCE, instant(window.since()));
        item.put(DEADLINE, instant(window.deadline()));
        item.put(Resources.DUE_SHARD, s(buckets.partitionFor(window.deadline(), id, RUN_ID)));
        item.put(Resources.DUE_SORT, s(TimeBuckets.sortKey(window.deadline(), id, RUN_ID)));
        return item;
    }

    private static Map<String, AttributeValue> key(String jobId) {
        return Map.of(Resources.JOB_ID, s(jobId + SUFFIX), Resources.RUN_ID, s(RUN_ID));
    }
}
