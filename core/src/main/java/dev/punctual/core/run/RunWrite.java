package dev.punctual.core.run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The pieces of one conditional write of a run's item, put together clause by clause: every attribute is named
 * {@code #<attribute>} and every value {@code :v<n>}, so clauses added independently never collide. Only
 * {@link ChangeWrites} builds them.
 */
final class RunWrite {
    private final String table;
    private final Map<String, AttributeValue> key;
    private final Map<String, String> names = new HashMap<>();
    private final Map<String, AttributeValue> values = new HashMap<>();
    private final List<String> set = new ArrayList<>();
    private final List<String> remove = new ArrayList<>();
    private final List<String> conditions = new ArrayList<>();
    /** The plain assignments, which a put writes into its item. */
    private final Map<String, AttributeValue> assigned = new LinkedHashMap<>();

    RunWrite(String table, Map<String, AttributeValue> key) {
        this.table = table;
        this.key = key;
    }

    /** The placeholder of {@code attribute}. */
    String name(String attribute) {
        String alias = "#" + attribute;
        names.put(alias, attribute);
        return alias;
    }

    /** A placeholder holding {@code value}. */
    String value(AttributeValue value) {
        String alias = ":v" + values.size();
        values.put(alias, value);
        return alias;
    }

    RunWrite set(String attribute, AttributeValue value) {
        set.add(name(attribute) + " = " + value(value));
        assigned.put(attribute, value);
        return this;
    }

    /** Sets the attribute, or removes it when {@code value} is null. */
    RunWrite setOrRemove(String attribute, AttributeValue value) {
        return value == null ? remove(attribute) : set(attribute, value);
    }

    /**
     * {@code attribute = attribute + 1}, from 0 where the item has none yet. UpdateItem only: PartiQL has no
     * {@code if_not_exists} ({@link #statement} would not translate it).
     */
    RunWrite count(String attribute) {
        String a = name(attribute);
        set.add(a + " = if_not_exists(" + a + ", " + value(AttributeValue.fromN("0")) + ") + "
                + value(AttributeValue.fromN("1")));
        return this;
    }

    /** {@code attribute = attribute + n}. */
    RunWrite add(String attribute, long n) {
        String a = name(attribute);
        set.add(a + " = " + a + " + " + value(AttributeValue.fromN(Long.toString(n))));
        return this;
    }

    RunWrite remove(String... attributes) {
        for (String attribute : attributes) {
            remove.add(name(attribute));
        }
        return this;
    }

    /** One more clause the write is conditional on (ANDed with the others); written with {@link #name}/{@link #value}. */
    RunWrite require(String condition) {
        conditions.add(condition);
        return this;
    }

    String condition() {
        StringJoiner all = new StringJoiner(" AND ");
        // Only a disjunction needs its parentheses among the others: DynamoDB refuses redundant ones.
        conditions.forEach(c -> all.add(conditions.size() > 1 && c.contains(" OR ") ? "(" + c + ")" : c));
        return all.toString();
    }

    String update() {
        String out = set.isEmpty() ? "" : "SET " + String.join(", ", set);
        if (!remove.isEmpty()) {
            out += (out.isEmpty() ? "" : " ") + "REMOVE " + String.join(", ", remove);
        }
        return out;
    }

    UpdateItemRequest updateRequest() {
        return UpdateItemRequest.builder()
                .tableName(table)
                .key(key)
                .updateExpression(update())
                .conditionExpression(condition())
                .expressionAttributeNames(names)
                .expressionAttributeValues(nullIfEmpty(values))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build();
    }

    /** The update as one item of a transaction; a lost condition brings the item as it was. */
    TransactWriteItem updateItem() {
        return TransactWriteItem.builder()
                .update(Update.builder()
                        .tableName(table)
                        .key(key)
                        .updateExpression(update())
                        .conditionExpression(condition())
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(nullIfEmpty(values))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build())
                .build();
    }

    /** {@code item} written whole, with the plain assignments added, under this write's condition. */
    TransactWriteItem putItem(Map<String, AttributeValue> item) {
        if (!remove.isEmpty() || set.size() != assigned.size()) {
            throw new IllegalStateException("a put writes its item whole: " + update());
        }
        Map<String, AttributeValue> whole = new LinkedHashMap<>(key);
        whole.putAll(item);
        whole.putAll(assigned);
        return TransactWriteItem.builder()
                .put(Put.builder()
                        .tableName(table)
                        .item(whole)
                        .conditionExpression(condition())
                        // DynamoDB refuses placeholders an expression does not use: only the condition's.
                        .expressionAttributeNames(usedIn(condition(), names))
                        .expressionAttributeValues(nullIfEmpty(usedIn(condition(), values)))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .build())
                .build();
    }

    /** A PartiQL statement and its parameters, in the order of its {@code ?}. */
    record Statement(String text, List<AttributeValue> parameters) {}

    private static final Pattern TOKEN = Pattern.compile(
            "attribute_not_exists\\((#\\w+)\\)|attribute_exists\\((#\\w+)\\)|IN \\(([^)]*)\\)|#(\\w+)|(:v\\d+)");

    /**
     * This write as one PartiQL {@code UPDATE} (for {@code BatchExecuteStatement}, which keeps a condition per
     * statement): the same assignments, removals and condition, the key as the {@code WHERE} clause's equalities,
     * and the new item returned when {@code returningNew}. Translated from the expressions above, so the two forms
     * cannot drift apart: {@code #name} becomes {@code "name"}, each {@code :v} a parameter, {@code
     * attribute_not_exists(x)} {@code x IS MISSING}, and {@code IN (…)} {@code IN […]}.
     */
    Statement statement(boolean returningNew) {
        List<AttributeValue> parameters = new ArrayList<>();
        StringBuilder text = new StringBuilder("UPDATE \"").append(table).append('"');
        set.forEach(a -> text.append(" SET ").append(translate(a, parameters)));
        remove.forEach(r -> text.append(" REMOVE ").append(translate(r, parameters)));
        StringJoiner where = new StringJoiner(" AND ", " WHERE ", "");
        key.forEach((attribute, v) -> {
            where.add('"' + attribute + "\" = ?");
            parameters.add(v);
        });
        String condition = condition();
        if (!condition.isEmpty()) {
            // ANDed with the key: a lone disjunction needs its parentheses here.
            where.add(translate(
                    conditions.size() == 1 && condition.contains(" OR ") ? "(" + condition + ")" : condition,
                    parameters));
        }
        text.append(where);
        if (returningNew) {
            text.append(" RETURNING ALL NEW *");
        }
        return new Statement(text.toString(), parameters);
    }

    /** {@code expression} in PartiQL, its {@code :v} placeholders turned into parameters appended to {@code out}. */
    private String translate(String expression, List<AttributeValue> out) {
        Matcher m = TOKEN.matcher(expression);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String replacement;
            if (m.group(1) != null) {
                replacement = quoted(m.group(1)) + " IS MISSING";
            } else if (m.group(2) != null) {
                replacement = quoted(m.group(2)) + " IS NOT MISSING";
            } else if (m.group(3) != null) {
                replacement = "IN [" + translate(m.group(3), out) + "]";
            } else if (m.group(4) != null) {
                replacement = quoted("#" + m.group(4));
            } else {
                out.add(values.get(m.group(5)));
                replacement = "?";
            }
            m.appendReplacement(b, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(b);
        return b.toString();
    }

    private String quoted(String alias) {
        return '"' + names.get(alias) + '"';
    }

    private static <V> Map<String, V> usedIn(String expression, Map<String, V> placeholders) {
        Map<String, V> used = new HashMap<>();
        placeholders.forEach((alias, v) -> {
            if (Pattern.compile(Pattern.quote(alias) + "(?![A-Za-z0-9_])")
                    .matcher(expression)
                    .find()) {
                used.put(alias, v);
            }
        });
        return used;
    }

    private static <V> Map<String, V> nullIfEmpty(Map<String, V> m) {
        return m.isEmpty() ? null : m;
    }
}
