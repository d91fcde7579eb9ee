package dev.punctual.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A Markdown table, padded so it also reads as plain text. Columns whose header ends with {@code >} align right. */
public final class MarkdownTable {
    private final List<String> headers = new ArrayList<>();
    private final List<Boolean> right = new ArrayList<>();
    private final List<List<String>> rows = new ArrayList<>();

    public MarkdownTable(String... columns) {
        for (String c : columns) {
            boolean r = c.endsWith(">");
            headers.add(r ? c.substring(0, c.length() - 1) : c);
            right.add(r);
        }
    }

    public MarkdownTable row(String... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("expected " + headers.size() + " cells, got " + cells.length);
        }
        rows.add(Arrays.stream(cells).map(c -> c.replace("|", "\\|")).toList());
        return this;
    }

    public String render() {
        int[] width = new int[headers.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = Math.max(3, headers.get(i).length());
            for (List<String> r : rows) {
                width[i] = Math.max(width[i], r.get(i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, headers, width);
        List<String> rule = new ArrayList<>();
        for (int i = 0; i < width.length; i++) {
            rule.add(right.get(i) ? "-".repeat(width[i] - 1) + ":" : "-".repeat(width[i]));
        }
        line(out, rule, width);
        for (List<String> r : rows) {
            line(out, r, width);
        }
        return out.toString();
    }

    private void line(StringBuilder out, List<String> cells, int[] width) {
        out.append('|');
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            String pad = " ".repeat(width[i] - c.length());
            out.append(' ').append(right.get(i) ? pad + c : c + pad).append(" |");
        }
        out.append('\n');
    }
}
