package dev.punctual.core.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Pagination cursors: a DynamoDB LastEvaluatedKey (all string attributes here) as opaque base64url JSON. */
public final class Cursors {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Cursors() {
    }

    public static String encode(Map<String, AttributeValue> key) {
        if (key == null) {
            return null;
        }
        ObjectNode n = JSON.createObjectNode();
        key.forEach((k, v) -> n.put(k, v.s()));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(n.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** @throws ValidationException naming {@code cursor} when it was not made by {@link #encode} */
    public static Map<String, AttributeValue> decode(String cursor, java.util.Set<String> expectedKeys) {
        if (cursor == null || cursor.isEmpty()) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(Base64.getUrlDecoder().decode(cursor));
            Map<String, AttributeValue> key = new LinkedHashMap<>();
            n.fields().forEachRemaining(e -> key.put(e.getKey(), AttributeValue.fromS(e.getValue().asText())));
            if (!key.keySet().equals(expectedKeys)) {
                throw new IllegalArgumentException("unexpected keys");
            }
            return key;
        } catch (Exception e) {
            throw new ValidationException(400, java.util.List.of(
                    new FieldError("cursor", "is not a cursor returned by this API")));
        }
    }
}
