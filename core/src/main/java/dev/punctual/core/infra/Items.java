package dev.punctual.core.infra;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Small conversions between DynamoDB attribute values and Java values; absent attributes read as null. */
public final class Items {
    private Items() {}

    public static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }

    public static AttributeValue n(long v) {
        return AttributeValue.fromN(Long.toString(v));
    }

    public static AttributeValue instant(Instant v) {
        return AttributeValue.fromS(v.toString());
    }

    public static AttributeValue strings(List<String> v) {
        return AttributeValue.fromL(v.stream().map(AttributeValue::fromS).toList());
    }

    public static AttributeValue stringMap(Map<String, String> v) {
        var m = new java.util.LinkedHashMap<String, AttributeValue>();
        v.forEach((k, val) -> m.put(k, AttributeValue.fromS(val)));
        return AttributeValue.fromM(m);
    }

    public static String str(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null ? null : v.s();
    }

    public static Integer integer(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null || v.n() == null ? null : Integer.valueOf(v.n());
    }

    public static Long longValue(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null || v.n() == null ? null : Long.valueOf(v.n());
    }

    public static Instant instant(Map<String, AttributeValue> item, String name) {
        String v = str(item, name);
        return v == null ? null : Instant.parse(v);
    }

    public static List<String> strings(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null || !v.hasL()
                ? List.of()
                : v.l().stream().map(AttributeValue::s).toList();
    }

    public static Map<String, String> stringMap(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        if (v == null || !v.hasM()) {
            return Map.of();
        }
        var out = new java.util.LinkedHashMap<String, String>();
        v.m().forEach((k, val) -> out.put(k, val.s()));
        return out;
    }
}
