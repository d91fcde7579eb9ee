package dev.punctual.core.infra;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Writes items of one table with BatchWriteItem: 25 a call, at a plain write's price (a transaction's is double), the
 * requests DynamoDB left unprocessed sent again. BatchWriteItem takes no condition: only for items that cannot exist
 * yet (a fresh id) or whose removal needs none. The call itself is the repository's ({@code dynamo::batchWriteItem}),
 * so the table's every action stays in its repository class.
 */
public final class BatchWrites {
    /** BatchWriteItem's limit of requests per call. */
    static final int MAX_REQUESTS = 25;

    private static final int MAX_ROUNDS = 10;

    private BatchWrites() {}

    /**
     * Puts the items of {@code puts} (conditional puts of new items, as a transaction would write them) without
     * their conditions: each names an item with a fresh id, which the condition only guarded against colliding.
     */
    public static void putNew(
            Function<BatchWriteItemRequest, BatchWriteItemResponse> batchWriteItem,
            String table,
            List<Transactions.Write> puts) {
        List<WriteRequest> requests = new ArrayList<>();
        for (Transactions.Write w : puts) {
            TransactWriteItem t = w.item();
            if (t.put() == null || !table.equals(t.put().tableName())) {
                throw new IllegalArgumentException("not a put into " + table + ": " + t);
            }
            requests.add(WriteRequest.builder()
                    .putRequest(PutRequest.builder().item(t.put().item()).build())
                    .build());
        }
        write(batchWriteItem, table, requests);
    }

    /** Deletes the items of {@code keys}, unconditionally. */
    public static void delete(
            Function<BatchWriteItemRequest, BatchWriteItemResponse> batchWriteItem,
            String table,
            List<Map<String, AttributeValue>> keys) {
        write(
                batchWriteItem,
                table,
                keys.stream()
                        .map(k -> WriteRequest.builder()
                                .deleteRequest(DeleteRequest.builder().key(k).build())
                                .build())
                        .toList());
    }

    private static void write(
            Function<BatchWriteItemRequest, BatchWriteItemResponse> batchWriteItem,
            String table,
            List<WriteRequest> requests) {
        for (int from = 0; from < requests.size(); from += MAX_REQUESTS) {
            List<WriteRequest> pending = requests.subList(from, Math.min(requests.size(), from + MAX_REQUESTS));
            for (int round = 0; !pending.isEmpty(); round++) {
                if (round == MAX_ROUNDS) {
                    // Throttled round after round (the SDK's retries backing off on each call): the caller undoes
                    // what it wrote rather than wait on.
                    throw new IllegalStateException(
                            pending.size() + " writes to " + table + " still unprocessed after " + round + " calls");
                }
                List<WriteRequest> ask = pending;
                BatchWriteItemResponse r = batchWriteItem.apply(BatchWriteItemRequest.builder()
                        .requestItems(Map.of(table, ask))
                        .build());
                List<WriteRequest> left = r.unprocessedItems().get(table);
                pending = left == null ? List.of() : left;
            }
        }
    }
}
