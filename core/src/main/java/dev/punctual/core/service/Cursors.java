package dev.punctual.core.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.infra.PageKey;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Pagination cursors: where a listing's next page starts ({@link PageKey}: a query's LastEvaluatedKey, all string
 * attributes here) as opaque base64url JSON.
 *
 * <p>A cursor comes back from the client, so it is checked before it becomes an ExclusiveStartKey: each attribute
 * must be one the listing's key has and hold a value that listing could have produced (the caller's owner, the
 * job being listed), or DynamoDB itself would fail the query.
 */
public final class Cursors {
    /** DynamoDB's limit on a sort key; every attribute of our keys is far shorter. */
    static final int MAX_VALUE_BYTES = 1024;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The most items one page of a listing may ask for ({@code limit}); 20 when it asks for none. */
    public static final int MAX_PAGE = 100;

    private static final int DEFAULT_PAGE = 20;

    /** The page size a listing's {@code limit} asks for, refused (naming {@code limit}) outside 1 to {@link #MAX_PAGE}. */
    static int pageSize(Integer limit) {
        if (limit == null) {
            return DEFAULT_PAGE;
        }
        if (limit < 1 || limit > MAX_PAGE) {
            throw new ValidationException(
                    Rejection.MALFORMED, List.of(new FieldError("limit", "must be between 1 and " + MAX_PAGE)));
        }
        return limit;
    }

    private Cursors() {}

    public static String encode(PageKey key) {
        return key == null ? null : write(key.fields());
    }

    /** {@link #decode(String, Map)} where any value of the expected attributes will do. */
    public static PageKey decode(String cursor, Set<String> expectedKeys) {
        return decode(cursor, expectedKeys.stream().collect(Collectors.toMap(k -> k, k -> v -> true)));
    }

    /**
     * @param expected each attribute the key must have (and no other), with what its value must satisfy
     * @throws ValidationException naming {@code cursor} when it was not made by {@link #encode} for this listing
     */
    public static PageKey decode(String cursor, Map<String, Predicate<String>> expected) {
        if (cursor == null || cursor.isEmpty()) {
            return null;
        }
        Map<String, String> text = read(cursor);
        if (!text.keySet().equals(expected.keySet())) {
            throw rejected();
        }
        text.forEach((name, value) -> {
            if (!expected.get(name).test(value)) {
                throw rejected();
            }
        });
        return new PageKey(text);
    }

    /** Names and string values as an opaque cursor: base64url JSON. */
    static String write(Map<String, String> fields) {
        ObjectNode n = JSON.createObjectNode();
        fields.forEach(n::put);
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(n.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * What {@link #write} made of a cursor, each value at most {@link #MAX_VALUE_BYTES}; anything else (a stranger's
     * text) is refused naming {@code cursor}. The caller checks the names and values its listing could have made.
     */
    static Map<String, String> read(String cursor) {
        Map<String, String> fields = new LinkedHashMap<>();
        try {
            JsonNode n = JSON.readTree(Base64.getUrlDecoder().decode(cursor));
            if (n == null || !n.isObject()) {
                throw rejected();
            }
            n.fields().forEachRemaining(e -> {
                if (!e.getValue().isTextual()) {
                    throw rejected();
                }
                fields.put(e.getKey(), e.getValue().asText());
            });
        } catch (ValidationException e) {
            throw e;
        } catch (Exception e) {
            throw rejected();
        }
        fields.values().forEach(v -> {
            if (v.getBytes(StandardCharsets.UTF_8).length > MAX_VALUE_BYTES) {
                throw rejected();
            }
        });
        return fields;
    }

    static ValidationException rejected() {
        return new ValidationException(
                Rejection.MALFORMED,
                List.of(new FieldError("cursor", "is not a cursor returned by this API for this listing")));
    }
}
