package dev.punctual.core.run;

import static dev.punctual.core.infra.Items.s;
import static dev.punctual.core.run.RunItems.FINISHED_AT;
import static dev.punctual.core.run.RunItems.LAUNCHED_AT;
import static dev.punctual.core.run.RunItems.STATE;
import static dev.punctual.core.run.RunRepository.CLAIM_TOLERANCE;
import static dev.punctual.core.run.RunRepository.CLOCK_SKEW;
import static dev.punctual.core.run.RunRepository.RELEASE_WINDOW;
import static dev.punctual.core.run.RunRepository.deadPartition;

import dev.punctual.core.infra.BatchReads;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.PageKey;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import dev.punctual.core.run.RunRepository.Attention;
import dev.punctual.core.run.RunRepository.Entries;
import dev.punctual.core.run.RunRepository.PageOfRuns;
import dev.punctual.core.run.RunRepository.RunRange;
import dev.punctual.core.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * The queries behind {@link RunRepository}'s reads of the runs table and its indexes (the due index, the dead-letter
 * index): what each answers is said on the repository's method, how it reads here.
 */
final class RunQueries {
    private final DynamoDbClient dynamo;
    private final TableSpec table;

    RunQueries(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.runs();
    }

    Entries entriesIn(String partition, Instant upTo) {
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
     * {@link RunRepository#lastSuccess}: read strongly, newest runs first, a page at a time until one holds such a
     * success; its latest is taken (a run due earlier that finished later still is found by the next window's read,
     * which starts after this one).
     */
    Optional<Instant> lastSuccess(String jobId, Instant dueFrom, Instant after, Instant upTo) {
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
     * {@link RunRepository#startsCommittedUntil}: a strongly consistent query of the job's runs due around now (run
     * ids are due instants, in time order; a trigger's id is its instant and a suffix).
     */
    Optional<Instant> startsCommittedUntil(String jobId, Instant now) {
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

    PageOfRuns listForJob(String jobId, int limit, PageKey startKey, RunRange range) {
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

    PageOfRuns listDead(String owner, int limit, PageKey startKey) {
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
