package dev.punctual.core.infra;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Where the next page of a listing starts: a query's LastEvaluatedKey, whose attributes are all strings in our
 * tables' keys and indexes, as names and text. Services hand it to clients as a cursor and back; only a repository
 * turns it into DynamoDB's form.
 */
public record PageKey(Map<String, String> fields) {
    public PageKey {
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** Where the page after {@code r} starts; null when {@code r} was the last. */
    public static PageKey after(QueryResponse r) {
        if (!r.hasLastEvaluatedKey() || r.lastEvaluatedKey().isEmpty()) {
            return null;
        }
        Map<String, String> fields = new LinkedHashMap<>();
        r.lastEvaluatedKey().forEach((k, v) -> fields.put(k, v.s()));
        return new PageKey(fields);
    }

    /** The ExclusiveStartKey a query continues from; null for the first page. */
    public static Map<String, AttributeValue> startOf(PageKey key) {
        if (key == null || key.fields.isEmpty()) {
            return null;
        }
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        key.fields.forEach((k, v) -> item.put(k, AttributeValue.fromS(v)));
        return item;
    }
}
