package dev.punctual.core.tenant;

import static dev.punctual.core.infra.Items.s;

import dev.punctual.core.infra.BatchReads;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.Transactions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * Every expression of a tenant's running slots: with a running limit of N, slot i (0 ≤ i < N) is an item of the jobs
 * table under {@code jobId = tenant#<owner>#running#<i>} (no {@code owner} attribute, so no index sees it; job ids
 * never contain '#'), holding the run that took it and the claim's token. A claim takes a slot in its transaction,
 * conditional on the holder it read (none, or a run that is not RUNNING under a live lease, which the transaction
 * checks on the run itself), so two claims cannot take one slot and a tenant never has more than N runs RUNNING.
 * Each slot its own item: claims of one tenant's runs on many executors touch different items, not one hot one.
 */
public final class TenantSlots {
    private static final String HOLDER_JOB = "holderJob";
    private static final String HOLDER_RUN = "holderRun";
    private static final String TOKEN = "token";

    /** The run holding a slot, and the token of the claim that took it (a later claim of the run has another). */
    public record Holder(String jobId, String runId, String token) {}

    private final DynamoDbClient dynamo;
    private final String table;

    public TenantSlots(DynamoDbClient dynamo, Resources resources) {
        this.dynamo = dynamo;
        this.table = resources.jobs().name();
    }

    static Map<String, AttributeValue> key(String owner, int slot) {
        return Map.of(Resources.JOB_ID, s("tenant#" + owner + "#running#" + slot));
    }

    /**
     * The holders of {@code owner}'s slots 0 to {@code limit} − 1 (null: empty), in one eventually consistent read:
     * where a claim may look; its transaction checks what it found.
     */
    public List<Holder> read(String owner, int limit) {
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (int i = 0; i < limit; i++) {
            keys.add(key(owner, i));
        }
        Map<String, Holder> byKey = new HashMap<>();
        for (Map<String, AttributeValue> item : BatchReads.get(dynamo::batchGetItem, table, keys)) {
            byKey.put(Items.str(item, Resources.JOB_ID), holder(item));
        }
        List<Holder> out = new ArrayList<>();
        for (Map<String, AttributeValue> k : keys) {
            out.add(byKey.get(Items.str(k, Resources.JOB_ID)));
        }
        return out;
    }

    /** The holder an item names; null for an item that names none. */
    public static Holder holder(Map<String, AttributeValue> item) {
        if (item == null || !item.containsKey(HOLDER_RUN)) {
            return null;
        }
        return new Holder(Items.str(item, HOLDER_JOB), Items.str(item, HOLDER_RUN), Items.str(item, TOKEN));
    }

    /**
     * The transaction's item that makes {@code me} the holder of {@code owner}'s slot {@code slot}, if it still holds
     * {@code seen} (null: nothing). The slot as it was comes back on failure.
     */
    public Transactions.Write take(String owner, int slot, Holder seen, Holder me) {
        Map<String, String> names = Map.of("#j", HOLDER_JOB, "#r", HOLDER_RUN, "#t", TOKEN);
        Map<String, AttributeValue> values =
                new HashMap<>(Map.of(":j", s(me.jobId()), ":r", s(me.runId()), ":t", s(me.token())));
        String condition;
        if (seen == null) {
            condition = "attribute_not_exists(#r)";
        } else {
            condition = "#j = :sj AND #r = :sr AND #t = :st";
            values.put(":sj", s(seen.jobId()));
            values.put(":sr", s(seen.runId()));
            values.put(":st", s(seen.token()));
        }
        return new Transactions.Write(TransactWriteItem.builder()
                .update(u -> u.tableName(table)
                        .key(key(owner, slot))
                        .updateExpression("SET #j = :j, #r = :r, #t = :t")
                        .conditionExpression(condition)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))
                .build());
    }

    /**
     * Empties {@code owner}'s slot {@code slot} if {@code me} still holds it: after the attempt's outcome is written.
     * A slot not emptied (its executor stopped first) is taken over once its run is no longer RUNNING under a live
     * lease, which the claim that takes it checks.
     */
    public void release(String owner, int slot, Holder me) {
        try {
            dynamo.deleteItem(d -> d.tableName(table)
                    .key(key(owner, slot))
                    .conditionExpression("#r = :r AND #t = :t")
                    .expressionAttributeNames(Map.of("#r", HOLDER_RUN, "#t", TOKEN))
                    .expressionAttributeValues(Map.of(":r", s(me.runId()), ":t", s(me.token()))));
        } catch (ConditionalCheckFailedException taken) {
            // Taken over already (this attempt's lease had expired): the slot is another claim's now.
        }
    }
}
