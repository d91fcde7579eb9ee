package dev.punctual.core.job;

import dev.punctual.core.error.FieldError;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A job's labels: {@code key=value} tags its owner groups and filters jobs by ({@code GET /v1/jobs?label=team=pay}).
 * Bounded because the job item carries them and every write of the item (one or two per run of a recurring job) is
 * billed by its size: at most {@value #MAX} labels of {@value #MAX_LENGTH} characters a key or a value, about 2 KB at
 * worst. Neither a key nor a value holds {@code ,} or {@code =}, so a filter needs no escaping.
 */
public final class Labels {
    public static final int MAX = 16;
    public static final int MAX_LENGTH = 63;
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?");
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9._/:@+-]*");

    private Labels() {}

    /** What is wrong with {@code labels}, each naming its field ({@code labels.<key>}); empty when they are fine. */
    public static List<FieldError> problems(Map<String, String> labels) {
        List<FieldError> out = new ArrayList<>();
        if (labels == null) {
            return out;
        }
        if (labels.size() > MAX) {
            out.add(new FieldError("labels", "must have at most " + MAX + " labels"));
            return out;
        }
        for (var e : new TreeMap<>(labels).entrySet()) {
            String field = "labels." + e.getKey();
            if (e.getKey().length() > MAX_LENGTH || !KEY.matcher(e.getKey()).matches()) {
                out.add(new FieldError(
                        field,
                        "the key must be 1 to " + MAX_LENGTH + " letters, digits or . _ / -, starting and ending"
                                + " with a letter or digit"));
            } else if (e.getValue() == null) {
                out.add(new FieldError(field, "must have a value (it may be empty)"));
            } else if (e.getValue().length() > MAX_LENGTH
                    || !VALUE.matcher(e.getValue()).matches()) {
                out.add(new FieldError(
                        field, "the value must be at most " + MAX_LENGTH + " letters, digits or . _ / : @ + -"));
            }
        }
        return out;
    }

    /**
     * A filter: every {@code key=value} of {@code selector} (comma-separated; a bare {@code key} asks only that the
     * label is there), a value null for any. {@code selector} is one {@link #selectorProblem} found nothing wrong
     * with.
     */
    public static Map<String, String> selector(String selector) {
        Map<String, String> out = new TreeMap<>();
        for (String part : selector.split(",", -1)) {
            int eq = part.indexOf('=');
            out.put(eq < 0 ? part : part.substring(0, eq), eq < 0 ? null : part.substring(eq + 1));
        }
        return Collections.unmodifiableMap(out);
    }

    /** Why {@code selector} is not a filter, or null when it is. */
    public static String selectorProblem(String selector) {
        String[] parts = selector.split(",", -1);
        if (parts.length > MAX) {
            return "names at most " + MAX + " labels";
        }
        for (String part : parts) {
            int eq = part.indexOf('=');
            String key = eq < 0 ? part : part.substring(0, eq);
            String value = eq < 0 ? "" : part.substring(eq + 1);
            if (!KEY.matcher(key).matches() || !VALUE.matcher(value).matches()) {
                return "must be key=value (or key) pairs separated by commas, e.g. team=payments,tier=gold; got "
                        + part;
            }
        }
        return null;
    }

    /** Whether {@code labels} has every label of {@code selector} (a null value: any value). */
    public static boolean matches(Map<String, String> labels, Map<String, String> selector) {
        for (var e : selector.entrySet()) {
            String have = labels.get(e.getKey());
            if (have == null || (e.getValue() != null && !e.getValue().equals(have))) {
                return false;
            }
        }
        return true;
    }
}
