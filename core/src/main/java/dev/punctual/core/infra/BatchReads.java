package dev.punctual.core.infra;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;

/**
 * Reads the items a keys-only index entry points at: BatchGetItem, 100 keys a call, eventually consistent (as the
 * index itself is), with the keys DynamoDB left unprocessed asked again. The call itself is the repository's
 * ({@code dynamo::batchGetItem}), so the table's every action stays in its repository class.
 */
public final class BatchReads {
    /** BatchGetItem's limit of keys per call. */
    public static final int MAX_KEYS = 100;

    private BatchReads() {}

    /**
     * The items of {@code keys} in {@code table}, in the keys' order; an item deleted since its index entry was read
     * is left out.
     */
    public static List<Map<String, AttributeValue>> get(
            Function<BatchGetItemRequest, BatchGetItemResponse> batchGetItem,
            String table,
            List<Map<String, AttributeValue>> keys) {
        return get(batchGetItem, table, keys, false);
    }

    /** {@link #get}, strongly consistent if {@code consistent} (at twice the read units). */
    public static List<Map<String, AttributeValue>> get(
            Function<BatchGetItemRequest, BatchGetItemResponse> batchGetItem,
            String table,
            List<Map<String, AttributeValue>> keys,
            boolean consistent) {
        Map<Map<String, AttributeValue>, Map<String, AttributeValue>> found = new HashMap<>();
        for (int from = 0; from < keys.size(); from += MAX_KEYS) {
            List<Map<String, AttributeValue>> pending = keys.subList(from, Math.min(keys.size(), from + MAX_KEYS));
            while (!pending.isEmpty()) {
                List<Map<String, AttributeValue>> ask = pending;
                BatchGetItemResponse r = batchGetItem.apply(BatchGetItemRequest.builder()
                        .requestItems(Map.of(
                                table,
                                KeysAndAttributes.builder()
                                        .keys(ask)
                                        .consistentRead(consistent)
                                        .build()))
                        .build());
                for (Map<String, AttributeValue> item : r.responses().getOrDefault(table, List.of())) {
                    found.put(keyOf(item, ask.getFirst().keySet()), item);
                }
                KeysAndAttributes left = r.unprocessedKeys().get(table);
                // Unprocessed keys come back when the table throttles: asked again at once, the SDK's retry
                // policy having already backed off on the call itself.
                pending = left == null || !left.hasKeys() ? List.of() : new ArrayList<>(left.keys());
            }
        }
        List<Map<String, AttributeValue>> out = new ArrayList<>();
        for (Map<String, AttributeValue> key : keys) {
            Map<String, AttributeValue> item = found.get(key);
            if (item != null) {
                out.add(item);
            }
        }
        return out;
    }

    /** The table's key of one item, given the key's attribute names. */
    private static Map<String, AttributeValue> keyOf(Map<String, AttributeValue> item, Iterable<String> names) {
        Map<String, AttributeValue> key = new HashMap<>();
        names.forEach(n -> key.put(n, item.get(n)));
        return key;
    }
}
