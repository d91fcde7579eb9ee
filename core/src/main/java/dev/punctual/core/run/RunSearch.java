package dev.punctual.core.run;

import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.BatchReads;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * An owner's runs across all their jobs, newest due first, through the runs table's {@code byOwner} index: keys
 * only, hashed on {@code ownerShard} ({@code <owner>#<0-7>}, by job) and sorted on the run id (its due instant).
 *
 * <p>Why shards: an index partition takes about 1,000 writes a second, and an index that cannot keep up throttles
 * the table's writes. One partition per owner would cap how fast a tenant's runs are created (thousands of jobs on one
 * cron create their runs in the same sweep, all with the same run id, which no split can separate). Eight spread
 * them; a page reads each shard and merges. Why keys only: both keys are written once, when the run is created, so
 * the claim, launch, heartbeats and outcome cost the index nothing; a page's runs are read by key.
 *
 * <p>A run written before the index existed has no {@code ownerShard} and is not in it (a sparse index): it stays
 * in its job's listing and leaves the table with its retention.
 */
public final class RunSearch {
    /** How many partitions an owner's runs are spread over; a page reads each. */
    public static final int SHARDS = 8;

    private final DynamoDbClient dynamo;
    private final String table;

    public RunSearch(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.runs().name();
    }

    /** The index partition of {@code owner}'s runs of {@code jobId}. */
    static String shard(String owner, String jobId) {
        return owner + "#" + shardOf(jobId);
    }

    /** Which of an owner's shards holds the runs of {@code jobId} (String.hashCode is specified, so stable). */
    public static int shardOf(String jobId) {
        return Math.floorMod(jobId.hashCode(), SHARDS);
    }

    /** A run's key. */
    public record RunKey(String jobId, String runId) {}

    /**
     * Where a search stands in each shard: after the key it names, {@code null} for a shard not read yet, and
     * {@link #done} for one read to its end.
     */
    public record Position(Map<Integer, RunKey> after, Set<Integer> done) {
        public static final Position START = new Position(Map.of(), Set.of());

        public Position {
            after = Map.copyOf(after);
            done = Set.copyOf(done);
        }

        public boolean finished() {
            return done.size() == SHARDS;
        }
    }

    /** A page: its runs, newest due first, and where the next starts (null: none follows). */
    public record Found(List<Run> runs, Position next) {}

    /**
     * Up to {@code limit} of the owner's runs due from {@code from} to {@code to} (inclusive; null: unbounded),
     * after {@code at}. Each unfinished shard is asked for {@code limit} keys; their lists are merged by run id,
     * each taken from its front only, so each shard's position is the last key taken from it.
     */
    public Found search(String owner, Instant from, Instant to, int limit, Position at) {
        List<List<RunKey>> lists = new ArrayList<>();
        List<Boolean> more = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            if (at.done().contains(shard)) {
                lists.add(List.of());
                more.add(false);
                continue;
            }
            QueryResponse r =
                    query(owner + "#" + shard, from, to, limit, at.after().get(shard));
            lists.add(r.items().stream()
                    .map(i -> new RunKey(Items.str(i, Resources.JOB_ID), Items.str(i, Resources.RUN_ID)))
                    .toList());
            more.add(r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty());
        }
        int[] taken = new int[SHARDS];
        List<RunKey> page = new ArrayList<>();
        while (page.size() < limit) {
            int best = -1;
            for (int shard = 0; shard < SHARDS; shard++) {
                if (taken[shard] < lists.get(shard).size()
                        && (best < 0
                                || lists.get(shard)
                                                .get(taken[shard])
                                                .runId()
                                                .compareTo(lists.get(best)
                                                        .get(taken[best])
                                                        .runId())
                                        > 0)) {
                    best = shard;
                }
            }
            if (best < 0) {
                break;
            }
            page.add(lists.get(best).get(taken[best]++));
        }
        Map<Integer, RunKey> after = new HashMap<>(at.after());
        Set<Integer> done = new HashSet<>(at.done());
        for (int shard = 0; shard < SHARDS; shard++) {
            if (taken[shard] > 0) {
                after.put(shard, lists.get(shard).get(taken[shard] - 1));
            }
            if (taken[shard] == lists.get(shard).size() && !more.get(shard)) {
                done.add(shard);
            }
        }
        Position next = new Position(after, done);
        List<Map<String, AttributeValue>> keys =
                page.stream().map(k -> RunItems.key(k.jobId(), k.runId())).toList();
        List<Run> runs = BatchReads.get(dynamo::batchGetItem, table, keys).stream()
                .map(RunItems::fromItem)
                .toList();
        return new Found(runs, next.finished() ? null : next);
    }

    /** One shard's keys, newest first, after {@code after} (a key of that shard; null: from its start). */
    private QueryResponse query(String partition, Instant from, Instant to, int limit, RunKey after) {
        Map<String, String> names = new HashMap<>(Map.of("#s", Resources.OWNER_SHARD));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":s", s(partition)));
        String key = "#s = :s";
        if (from != null || to != null) {
            names.put("#r", Resources.RUN_ID);
            values.put(":lo", s(RunIds.lowerBound(from)));
            values.put(":hi", s(RunIds.upperBound(to)));
            key += " AND #r BETWEEN :lo AND :hi";
        }
        Map<String, AttributeValue> start = null;
        if (after != null) {
            start = new LinkedHashMap<>();
            start.put(Resources.OWNER_SHARD, s(partition));
            start.put(Resources.RUN_ID, s(after.runId()));
            start.put(Resources.JOB_ID, s(after.jobId()));
        }
        String keyCondition = key;
        Map<String, AttributeValue> exclusiveStart = start;
        return dynamo.query(b -> b.tableName(table)
                .indexName(Resources.RUNS_BY_OWNER)
                .keyConditionExpression(keyCondition)
                .expressionAttributeNames(names)
                .expressionAttributeValues(values)
                .scanIndexForward(false)
                .limit(limit)
                .exclusiveStartKey(exclusiveStart));
    }
}
