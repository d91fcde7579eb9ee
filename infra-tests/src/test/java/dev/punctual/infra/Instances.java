package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@code for_each} declares without planning: the keys it can give and, for each, the block with
 * {@code each.key} and {@code each.value} put in. It reads the few shapes the module uses: a local (a literal map,
 * or a filter of one), {@code toset(…)}, a conditional, a list of strings, an empty collection. Anything else is an
 * error, so that no check passes for want of instances. A filter or a conditional gives every key it can give.
 */
final class Instances {
    private static final Pattern LOCAL = Pattern.compile("local\\.(\\w+)");
    private static final Pattern FILTER = Pattern.compile(
            "(?s)\\{\\s*for\\s+(\\w+)\\s*,\\s*(\\w+)\\s+in\\s+(.+?)\\s*:\\s*\\1\\s*=>\\s*\\2(\\s+if\\s+.*)?}");
    private static final Pattern STRINGS = Pattern.compile("\\[\\s*(\"[^\"]*\"\\s*(,\\s*\"[^\"]*\"\\s*)*,?\\s*)?]");
    private static final Pattern STRING = Pattern.compile("\"([^\"]*)\"");
    private static final Pattern SIMPLE = Pattern.compile("[\\w.\\[\\]\"-]+");

    private final Function<String, JsonNode> locals;

    Instances(Function<String, JsonNode> locals) {
        this.locals = locals;
    }

    /** The keys a for_each (as the parser gives it) can give, each with its each.value. */
    Map<String, JsonNode> entries(JsonNode forEach) {
        if (forEach.isObject()) {
            Map<String, JsonNode> out = new LinkedHashMap<>();
            forEach.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue()));
            return out;
        }
        if (forEach.isArray()) {
            Map<String, JsonNode> out = new LinkedHashMap<>();
            forEach.forEach(v -> out.put(v.asText(), v));
            return out;
        }
        return entries(unwrap(forEach.asText()));
    }

    private Map<String, JsonNode> entries(String expression) {
        String e = stripParentheses(expression.strip());
        int question = topLevel(e, '?', 0);
        if (question >= 0) {
            int colon = matchingColon(e, question);
            Map<String, JsonNode> out = new LinkedHashMap<>(entries(e.substring(question + 1, colon)));
            out.putAll(entries(e.substring(colon + 1)));
            return out;
        }
        if (e.startsWith("toset(") && e.endsWith(")")) {
            return entries(e.substring("toset(".length(), e.length() - 1));
        }
        Matcher local = LOCAL.matcher(e);
        if (local.matches()) {
            JsonNode value = locals.apply(local.group(1));
            if (value == null) {
                throw new IllegalStateException("for_each names local." + local.group(1) + ", which is not declared");
            }
            return entries(value);
        }
        Matcher filter = FILTER.matcher(e);
        if (filter.matches()) {
            return entries(filter.group(3));
        }
        Matcher strings = STRINGS.matcher(e);
        if (strings.matches()) {
            Map<String, JsonNode> out = new LinkedHashMap<>();
            Matcher s = STRING.matcher(e);
            while (s.find()) {
                out.put(s.group(1), JsonNodeFactory.instance.textNode(s.group(1)));
            }
            return out;
        }
        if (e.equals("{}")) {
            return Map.of();
        }
        throw new IllegalStateException("cannot tell the keys of for_each = " + expression);
    }

    /** A block with each.key and each.value put in, as if the parser had read that one instance. */
    static JsonNode resolve(JsonNode node, String key, JsonNode value) {
        return resolve(node, "each", key, value);
    }

    /**
     * A block with {@code <iterator>.key} and {@code <iterator>.value} put in: {@code each} for an instance of a
     * for_each, a dynamic block's name for one block it generates.
     */
    static JsonNode resolve(JsonNode node, String iterator, String key, JsonNode value) {
        return new Substitution(iterator, key, value).apply(node);
    }

    /**
     * The nested blocks {@code name} of a block: those written out, then those its {@code dynamic "<name>"} blocks
     * generate, one per entry of their for_each (a list's keys are its indexes). A dynamic block whose entries only
     * a plan can tell counts once, as written, so that the checks see what it may generate.
     */
    List<JsonNode> nested(JsonNode block, String name) {
        List<JsonNode> out = new ArrayList<>();
        block.path(name).forEach(out::add);
        for (JsonNode dynamic : block.path("dynamic").path(name)) {
            JsonNode content = dynamic.path("content").path(0);
            String iterator = unwrap(dynamic.path("iterator").asText(name));
            JsonNode forEach = dynamic.path("for_each");
            Map<String, JsonNode> entries = new LinkedHashMap<>();
            if (forEach.isArray()) {
                for (int i = 0; i < forEach.size(); i++) {
                    entries.put(Integer.toString(i), forEach.get(i));
                }
            } else {
                try {
                    entries = entries(forEach);
                } catch (IllegalStateException onlyAPlanCanTell) {
                    out.add(content);
                    continue;
                }
            }
            entries.forEach((key, value) -> out.add(resolve(content, iterator, key, value)));
        }
        return out;
    }

    /** {@code <iterator>.key} and {@code <iterator>.value} (and its attributes) replaced by one entry's. */
    private record Substitution(String iterator, String key, JsonNode value, Pattern whole, Pattern part) {
        Substitution(String iterator, String key, JsonNode value) {
            this(
                    iterator,
                    key,
                    value,
                    Pattern.compile("^\\$\\{" + iterator + "\\.value((?:\\.\\w+)*)}$"),
                    Pattern.compile("\\b" + iterator + "\\.value((?:\\.\\w+)*)"));
        }

        JsonNode apply(JsonNode node) {
            if (node.isObject()) {
                ObjectNode out = JsonNodeFactory.instance.objectNode();
                node.fields().forEachRemaining(e -> out.set(e.getKey(), apply(e.getValue())));
                return out;
            }
            if (node.isArray()) {
                var out = JsonNodeFactory.instance.arrayNode();
                node.forEach(n -> out.add(apply(n)));
                return out;
            }
            if (!node.isTextual()) {
                return node;
            }
            String text = node.asText();
            Matcher whole = this.whole.matcher(text);
            if (whole.matches()) {
                JsonNode v = at(value, whole.group(1));
                return v == null ? node : v.deepCopy();
            }
            String resolved = text.replace("${" + iterator + ".key}", key)
                    .replaceAll("\\b" + iterator + "\\.key\\b", Matcher.quoteReplacement(quoted(key)));
            resolved = inlineLiterals(resolved);
            Matcher m = part.matcher(resolved);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                JsonNode v = at(value, m.group(1));
                m.appendReplacement(sb, Matcher.quoteReplacement(v == null ? m.group() : expression(v, m.group())));
            }
            m.appendTail(sb);
            return JsonNodeFactory.instance.textNode(sb.toString());
        }

        /**
         * A template's {@code ${<iterator>.value…}} that stands for a literal (a string without interpolation, a
         * number, a boolean) written in as its text, as Terraform renders it: {@code "${var.p}-runs${each.value}"}
         * reads {@code ${var.p}-runs-high}, as {@code ${each.key}} does above.
         */
        private String inlineLiterals(String text) {
            Matcher m = Pattern.compile("\\$\\{" + iterator + "\\.value((?:\\.\\w+)*)}")
                    .matcher(text);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                JsonNode v = at(value, m.group(1));
                boolean literal = v != null
                        && (v.isNumber()
                                || v.isBoolean()
                                || (v.isTextual()
                                        && !v.asText().contains("${")
                                        && !v.asText().contains("%{")));
                m.appendReplacement(sb, Matcher.quoteReplacement(literal ? v.asText() : m.group()));
            }
            m.appendTail(sb);
            return sb.toString();
        }
    }

    /** A value as an expression: a {@code ${…}} string is its expression, a literal is quoted. */
    private static String expression(JsonNode v, String otherwise) {
        if (v.isTextual()) {
            String t = v.asText();
            if (t.startsWith("${") && t.endsWith("}") && t.indexOf("${", 2) < 0) {
                String inner = t.substring(2, t.length() - 1);
                return SIMPLE.matcher(inner).matches() ? inner : "(" + inner + ")";
            }
            return t.contains("${") ? otherwise : quoted(t);
        }
        return v.isNumber() || v.isBoolean() ? v.asText() : otherwise;
    }

    private static JsonNode at(JsonNode value, String path) {
        JsonNode v = value;
        for (String step : path.isEmpty() ? new String[0] : path.substring(1).split("\\.", -1)) {
            if (v == null || !v.has(step)) {
                return null;
            }
            v = v.get(step);
        }
        return v;
    }

    private static String quoted(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    static String unwrap(String expr) {
        return expr.startsWith("${") && expr.endsWith("}") ? expr.substring(2, expr.length() - 1) : expr;
    }

    private static String stripParentheses(String e) {
        while (e.startsWith("(") && topLevel(e, ')', 1) == e.length() - 1) {
            e = e.substring(1, e.length() - 1).strip();
        }
        return e;
    }

    /**
     * The first {@code wanted} from {@code from} outside strings and outside brackets opened after {@code from}, or
     * -1 (a closing bracket is found where it closes one opened before {@code from}).
     */
    private static int topLevel(String e, char wanted, int from) {
        int depth = 0;
        for (int i = from; i < e.length(); i++) {
            char c = e.charAt(i);
            if (c == wanted && depth == 0) {
                return i;
            } else if (c == '"') {
                i = endOfString(e, i);
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            }
        }
        return -1;
    }

    /** The {@code :} of the conditional whose {@code ?} is at {@code question} (nested conditionals skipped). */
    private static int matchingColon(String e, int question) {
        int pending = 1;
        int i = question;
        while (true) {
            int q = topLevel(e, '?', i + 1);
            int c = topLevel(e, ':', i + 1);
            if (c < 0) {
                throw new IllegalStateException("a conditional without ':' in " + e);
            }
            if (q >= 0 && q < c) {
                pending++;
                i = q;
            } else if (--pending == 0) {
                return c;
            } else {
                i = c;
            }
        }
    }

    private static int endOfString(String e, int open) {
        for (int i = open + 1; i < e.length(); i++) {
            if (e.charAt(i) == '\\') {
                i++;
            } else if (e.charAt(i) == '"') {
                return i;
            }
        }
        return e.length();
    }
}
