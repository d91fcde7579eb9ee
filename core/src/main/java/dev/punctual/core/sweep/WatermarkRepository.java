package dev.punctual.core.sweep;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.BatchReads;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Every expression of the sweeps table: the sweepers' watermarks, one per shard of the due index, each the first
 * minute bucket not yet known to be fully handled in that shard. Each only moves forward; two sweepers advancing one
 * at once both succeed or the later value wins. A shard is swept by one worker at a time ({@code Sweeper}), but
 * which worker may change with their number, so the marks are the shards', not the workers'.
 *
 * <p>Before sweeps were split, one watermark stood for every shard: a shard without a mark of its own starts from
 * that one (a deployment's first sweep after the upgrade), so nothing is skipped on the way.
 */
public final class WatermarkRepository {
    private static final String WATERMARK = "watermark";
    private static final String BUCKET = "bucket";
    private static final String UPDATED_AT = "updatedAt";

    private final DynamoDbClient dynamo;
    private final String table;

    public WatermarkRepository(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.sweeps().name();
    }

    /**
     * The watermark of each of {@code shards} that has one: its own; else the lowest of the others' own; else the
     * one every shard shared before sweeps were split. Read strongly, in one call.
     */
    public Map<Integer, Instant> get(List<Integer> shards) {
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        keys.add(key());
        shards.forEach(shard -> keys.add(key(shard)));
        Map<String, Instant> found = new HashMap<>();
        for (Map<String, AttributeValue> item : BatchReads.get(dynamo::batchGetItem, table, keys, true)) {
            found.put(Items.str(item, Resources.SWEEP_NAME), Items.instant(item, BUCKET));
        }
        // A shard with no mark of its own while others have one is new (punctual.shards was raised): it holds
        // nothing older than theirs. The mark all shards once shared may be far older: a day of buckets re-read.
        Instant lowestOwn = shards.stream()
                .map(shard -> found.get(name(shard)))
                .filter(java.util.Objects::nonNull)
                .min(Instant::compareTo)
                .orElse(null);
        Instant fallback = lowestOwn != null ? lowestOwn : found.get(WATERMARK);
        Map<Integer, Instant> out = new HashMap<>();
        for (int shard : shards) {
            Instant own = found.get(name(shard));
            if (own != null || fallback != null) {
                out.put(shard, own != null ? own : fallback);
            }
        }
        return out;
    }

    /** Moves {@code shard}'s watermark to {@code to} unless it is already there or beyond. */
    public boolean advance(int shard, Instant to, Instant now) {
        return advance(key(shard), to, now);
    }

    /** The watermark every shard without one of its own starts from (see above). */
    public Optional<Instant> get() {
        var item = dynamo.getItem(b -> b.tableName(table).key(key()).consistentRead(true))
                .item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.ofNullable(Items.instant(item, BUCKET));
    }

    /**
     * Moves the watermark every shard without one of its own starts from to {@code to} unless it is already there or
     * beyond. ISO instants compare as strings.
     */
    public boolean advance(Instant to, Instant now) {
        return advance(key(), to, now);
    }

    private boolean advance(Map<String, AttributeValue> key, Instant to, Instant now) {
        try {
            dynamo.updateItem(u -> u.tableName(table)
                    .key(key)
                    .updateExpression("SET #b = :to, #u = :now")
                    .conditionExpression("attribute_not_exists(#b) OR #b < :to")
                    .expressionAttributeNames(Map.of("#b", BUCKET, "#u", UPDATED_AT))
                    .expressionAttributeValues(Map.of(":to", instant(to), ":now", instant(now))));
            return true;
        } catch (ConditionalCheckFailedException alreadyAhead) {
            return false;
        }
    }

    private static Map<String, AttributeValue> key() {
        return Map.of(Resources.SWEEP_NAME, s(WATERMARK));
    }

    private static Map<String, AttributeValue> key(int shard) {
        return Map.of(Resources.SWEEP_NAME, s(name(shard)));
    }

    private static String name(int shard) {
        return WATERMARK + "#" + shard;
    }
}
