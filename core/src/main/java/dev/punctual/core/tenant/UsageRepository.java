package dev.punctual.core.tenant;

import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.limits.Quotas;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * Every expression of a tenant's usage item. It lives in the jobs table under {@code jobId = tenant#<owner>} with
 * no {@code owner} attribute, so no index sees it and no job id can collide with it (job ids never contain '#').
 * The job count and the scheduled rate are reserved before new jobs are written (and given back if their writes are
 * undone), and change in the same transaction as the job they count when a job is replaced or deleted; the trigger
 * and backfill counters are fixed windows (calendar minute, UTC day) counted before the action.
 */
public final class UsageRepository {
    private static final String JOBS = "jobs";
    private static final String RATE = "rate";
    private static final String TRIGGER_WINDOW = "triggerMinute";
    private static final String TRIGGERS = "triggers";
    private static final String BACKFILL_WINDOW = "backfillDay";
    private static final String BACKFILLED = "backfilled";
    private static final int RACES = 3;

    private final DynamoDbClient dynamo;
    private final String table;

    public UsageRepository(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.jobs().name();
    }

    static Map<String, AttributeValue> key(String owner) {
        return Map.of(Resources.JOB_ID, s("tenant#" + owner));
    }

    /**
     * Counts {@code jobs} more jobs adding {@code rate} starts per minute, before they are written (see
     * {@code JobService}); false, and nothing counted, when either quota would be passed.
     */
    public boolean reserve(String owner, int jobs, long rate, Quotas q) {
        try {
            dynamo.updateItem(u -> u.tableName(table)
                    .key(key(owner))
                    .updateExpression("SET #j = if_not_exists(#j, :zero) + :n, #r = if_not_exists(#r, :zero) + :rate")
                    .conditionExpression("(attribute_not_exists(#j) OR #j <= :jobRoom)"
                            + " AND (attribute_not_exists(#r) OR #r <= :rateRoom)")
                    .expressionAttributeNames(Map.of("#j", JOBS, "#r", RATE))
                    .expressionAttributeValues(Map.of(
                            ":zero",
                            n(0),
                            ":n",
                            n(jobs),
                            ":rate",
                            n(rate),
                            ":jobRoom",
                            n((long) q.jobs() - jobs),
                            ":rateRoom",
                            n(q.runsPerMinute() - rate))));
            return true;
        } catch (ConditionalCheckFailedException full) {
            return false;
        }
    }

    /** Gives back what {@link #reserve} counted for jobs whose creation was undone. */
    public void release(String owner, int jobs, long rate) {
        dynamo.updateItem(u -> u.tableName(table)
                .key(key(owner))
                .updateExpression("SET #j = if_not_exists(#j, :n) - :n, #r = if_not_exists(#r, :rate) - :rate")
                .expressionAttributeNames(Map.of("#j", JOBS, "#r", RATE))
                .expressionAttributeValues(Map.of(":n", n(jobs), ":rate", n(rate))));
    }

    /** A deleted job gives back its slot and its rate. Usage from before quotas existed never goes below zero. */
    public Transactions.Write removeJob(String owner, int rate) {
        return new Transactions.Write(TransactWriteItem.builder()
                .update(u -> u.tableName(table)
                        .key(key(owner))
                        .updateExpression(
                                "SET #j = if_not_exists(#j, :one) - :one, #r = if_not_exists(#r, :rate) - :rate")
                        .expressionAttributeNames(Map.of("#j", JOBS, "#r", RATE))
                        .expressionAttributeValues(Map.of(":one", n(1), ":rate", n(rate))))
                .build());
    }

    /** A replaced job's rate changes by {@code delta}; an increase fails its condition past the quota. */
    public Transactions.Write changeRate(String owner, int delta, Quotas q) {
        boolean increase = delta > 0;
        // A decrease of usage from before quotas existed starts from -delta, so it ends at zero, not below.
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":base", n(increase ? 0 : -delta), ":d", n(delta)));
        if (increase) {
            values.put(":room", n((long) q.runsPerMinute() - delta));
        }
        return new Transactions.Write(TransactWriteItem.builder()
                .update(u -> u.tableName(table)
                        .key(key(owner))
                        .updateExpression("SET #r = if_not_exists(#r, :base) + :d")
                        .conditionExpression(increase ? "attribute_not_exists(#r) OR #r <= :room" : null)
                        .expressionAttributeNames(Map.of("#r", RATE))
                        .expressionAttributeValues(values))
                .build());
    }

    /** The tenant's current job count and scheduled rate (0 when it has none). */
    public Usage get(String owner) {
        var item = dynamo.getItem(g -> g.tableName(table).key(key(owner)).consistentRead(true))
                .item();
        return new Usage(num(item, JOBS), num(item, RATE));
    }

    public record Usage(long jobs, long rate) {}

    /** Counts one trigger in the current minute; false when {@code max} were already counted in it. */
    public boolean countTrigger(String owner, Instant now, int max) {
        return count(owner, TRIGGER_WINDOW, TRIGGERS, now.getEpochSecond() / 60, 1, max);
    }

    /** Counts {@code n} backfilled occurrences in the current UTC day; false when that would pass {@code max}. */
    public boolean countBackfill(String owner, Instant now, int n, int max) {
        return count(owner, BACKFILL_WINDOW, BACKFILLED, now.getEpochSecond() / 86_400, n, max);
    }

    /**
     * A fixed-window counter in two conditional writes: add to the current window if it is the stored one, or start
     * it if the stored one is older. Losing both means a racer started this window meanwhile (try again) or the
     * window is full.
     */
    private boolean count(String owner, String windowAttr, String countAttr, long window, int n, int max) {
        if (n > max) {
            return false;
        }
        Map<String, String> names = Map.of("#w", windowAttr, "#c", countAttr);
        for (int i = 0; i < RACES; i++) {
            try {
                dynamo.updateItem(u -> u.tableName(table)
                        .key(key(owner))
                        .updateExpression("SET #c = #c + :n")
                        .conditionExpression("#w = :w AND #c <= :room")
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(Map.of(":n", n(n), ":w", n(window), ":room", n(max - n))));
                return true;
            } catch (ConditionalCheckFailedException sameWindowFull) {
                // Either the window is full, or it is not the stored one: try to start it.
            }
            try {
                dynamo.updateItem(u -> u.tableName(table)
                        .key(key(owner))
                        .updateExpression("SET #w = :w, #c = :n")
                        .conditionExpression("attribute_not_exists(#w) OR #w < :w")
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(Map.of(":n", n(n), ":w", n(window))));
                return true;
            } catch (ConditionalCheckFailedException current) {
                // The stored window is this one: the first write's failure meant it is full, unless a racer
                // started it between our two writes; one more round tells.
            }
        }
        return false;
    }

    private static long num(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item == null ? null : item.get(name);
        return v == null || v.n() == null ? 0 : Long.parseLong(v.n());
    }
}
