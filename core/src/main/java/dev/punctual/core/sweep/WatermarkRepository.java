package dev.punctual.core.sweep;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * Every expression of the sweeps table: the sweepers' watermarks, one per shard of the due index, each the first
 * minute bucket not yet known to be fully handled in that shard. Each only moves forward; two sweepers advancing
 * one at once both succeed or the later value wins. A shard is swept by one worker at a time ({@code Sweeper}),
 * but which worker may change with their number, so the marks are the shards', not the workers'.
 *
 * <p>All the marks are one item ({@value #WATERMARKS}, a map of shard to bucket), so a sweep reads them in one
 * unit and moves its shards' in one write, whatever {@code punctual.shards} is: the same as the single watermark
 * of before, whose item ({@value #WATERMARK}) a shard without a mark of its own starts from (a deployment's first
 * sweep after the upgrade), so nothing is skipped on the way.
 */
public final class WatermarkRepository {
    private static final String WATERMARK = "watermark";
    private static final String WATERMARKS = "watermarks";
    private static final String BUCKET = "bucket";
    private static final String SHARDS = "shards";
    private static final String UPDATED_AT = "updatedAt";

    private final DynamoDbClient dynamo;
    private final String table;

    public WatermarkRepository(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.sweeps().name();
    }

    /**
     * Where each of {@code shards} starts, and which of them have a mark of their own ({@code own}, a subset of
     * {@code from}'s keys). A shard's start is its own mark; else the lowest of every shard's own (a shard added as
     * {@code punctual.shards} grew holds nothing older than theirs), whichever worker sweeps them; else the one every
     * shard shared before sweeps were split; else none. A shard without its own must be written by its next sweep
     * even where it stands: a borrowed start rises with the others' marks and would pass its unhandled runs.
     */
    public record Marks(Map<Integer, Instant> from, Set<Integer> own) {}

    /** The {@link Marks} of {@code shards}, read strongly in one call (two when the shared one is needed). */
    public Marks get(List<Integer> shards) {
        Map<Integer, Instant> own = own();
        Map<Integer, Instant> from = new HashMap<>();
        own.forEach((shard, mark) -> {
            if (shards.contains(shard)) {
                from.put(shard, mark);
            }
        });
        Set<Integer> owned = Set.copyOf(from.keySet());
        if (from.size() < shards.size()) {
            Instant lowestOwn = own.values().stream().min(Instant::compareTo).orElse(null);
            Instant fallback = lowestOwn != null ? lowestOwn : get().orElse(null);
            if (fallback != null) {
                shards.forEach(shard -> from.putIfAbsent(shard, fallback));
            }
        }
        return new Marks(from, owned);
    }

    /** The shards with a mark of their own, and their marks, as stored (strongly read). */
    public Map<Integer, Instant> own() {
        Map<String, AttributeValue> item = read(WATERMARKS);
        Map<Integer, Instant> out = new HashMap<>();
        if (item.containsKey(SHARDS)) {
            item.get(SHARDS).m().forEach((shard, mark) -> out.put(Integer.parseInt(shard), Instant.parse(mark.s())));
        }
        return out;
    }

    /**
     * Moves each shard's watermark to its target unless it is already there or beyond; the shards moved. One write
     * for them all, unless another sweeper moved one of them further meanwhile (two at once): then one each.
     */
    public Set<Integer> advance(Map<Integer, Instant> targets, Instant now) {
        if (targets.isEmpty()) {
            return Set.of();
        }
        try {
            updateShards(targets, now, true);
            return targets.keySet();
        } catch (ConditionalCheckFailedException oneIsAhead) {
            Set<Integer> moved = new HashSet<>();
            targets.forEach((shard, to) -> {
                try {
                    updateShards(Map.of(shard, to), now, true);
                    moved.add(shard);
                } catch (ConditionalCheckFailedException alreadyAhead) {
                    // Another sweeper moved it at least as far: nothing to do.
                }
            });
            return moved;
        }
    }

    /** Moves {@code shard}'s watermark to {@code to} unless it is already there or beyond. */
    public boolean advance(int shard, Instant to, Instant now) {
        return advance(Map.of(shard, to), now).contains(shard);
    }

    private void updateShards(Map<Integer, Instant> targets, Instant now, boolean mayCreate) {
        Map<String, String> names = new HashMap<>(Map.of("#m", SHARDS, "#u", UPDATED_AT));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":now", instant(now)));
        List<String> sets = new ArrayList<>();
        List<String> conditions = new ArrayList<>();
        int i = 0;
        for (Map.Entry<Integer, Instant> e : targets.entrySet()) {
            names.put("#s" + i, Integer.toString(e.getKey()));
            values.put(":t" + i, instant(e.getValue()));
            sets.add("#m.#s" + i + " = :t" + i);
            // ISO instants of one width compare as strings.
            conditions.add("(attribute_not_exists(#m.#s" + i + ") OR #m.#s" + i + " < :t" + i + ")");
            i++;
        }
        String update = "SET " + String.join(", ", sets) + ", #u = :now";
        String condition = String.join(" AND ", conditions);
        try {
            dynamo.updateItem(u -> u.tableName(table)
                    .key(key(WATERMARKS))
                    .updateExpression(update)
                    .conditionExpression(condition)
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values));
        } catch (ConditionalCheckFailedException e) {
            throw e;
        } catch (DynamoDbException e) {
            // A path into a map that does not exist yet is invalid: the first write of all makes the item, unless
            // another sweeper made it meanwhile, and then the update is tried again, once. Anything else (a
            // throttled call) is the caller's to handle.
            boolean noMapYet = e.awsErrorDetails() != null
                    && "ValidationException".equals(e.awsErrorDetails().errorCode());
            if (!noMapYet || !mayCreate) {
                throw e;
            }
            if (!createWith(targets, now)) {
                updateShards(targets, now, false);
            }
        }
    }

    private boolean createWith(Map<Integer, Instant> targets, Instant now) {
        Map<String, AttributeValue> marks = new HashMap<>();
        targets.forEach((shard, to) -> marks.put(Integer.toString(shard), instant(to)));
        Map<String, AttributeValue> item = new HashMap<>(key(WATERMARKS));
        item.put(SHARDS, AttributeValue.fromM(marks));
        item.put(UPDATED_AT, instant(now));
        try {
            dynamo.putItem(p -> p.tableName(table)
                    .item(item)
                    .conditionExpression("attribute_not_exists(#n)")
                    .expressionAttributeNames(Map.of("#n", Resources.SWEEP_NAME)));
            return true;
        } catch (ConditionalCheckFailedException someoneElse) {
            return false;
        }
    }

    /** The watermark every shard without one of its own starts from (see above). */
    public Optional<Instant> get() {
        Map<String, AttributeValue> item = read(WATERMARK);
        return item.isEmpty() ? Optional.empty() : Optional.ofNullable(Items.instant(item, BUCKET));
    }

    /**
     * Moves the watermark every shard without one of its own starts from to {@code to} unless it is already there or
     * beyond. ISO instants compare as strings.
     */
    public boolean advance(Instant to, Instant now) {
        try {
            dynamo.updateItem(u -> u.tableName(table)
                    .key(key(WATERMARK))
                    .updateExpression("SET #b = :to, #u = :now")
                    .conditionExpression("attribute_not_exists(#b) OR #b < :to")
                    .expressionAttributeNames(Map.of("#b", BUCKET, "#u", UPDATED_AT))
                    .expressionAttributeValues(Map.of(":to", instant(to), ":now", instant(now))));
            return true;
        } catch (ConditionalCheckFailedException alreadyAhead) {
            return false;
        }
    }

    private Map<String, AttributeValue> read(String name) {
        var item = dynamo.getItem(b -> b.tableName(table).key(key(name)).consistentRead(true))
                .item();
        return item == null ? Map.of() : item;
    }

    private static Map<String, AttributeValue> key(String name) {
        return Map.of(Resources.SWEEP_NAME, s(name));
    }
}
