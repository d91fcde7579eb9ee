package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Rows printed under upper-case headers, in columns two spaces apart; an absent value prints as "-". */
final class Table {
    private final List<String> headers = new ArrayList<>();
    private final List<Function<JsonNode, String>> cells = new ArrayList<>();

    Table column(String header, Function<JsonNode, String> cell) {
        headers.add(header);
        cells.add(cell);
        return this;
    }

    /** A column showing a field of each row, as text. */
    Table field(String header, String name) {
        return column(header, n -> text(n.get(name)));
    }

    void print(PrintWriter out, Iterable<JsonNode> rows) {
        lines(rows).forEach(out::println);
    }

    /** The header and a line for each row, in columns sized to fit them all. */
    List<String> lines(Iterable<JsonNode> rows) {
        List<List<String>> lines = new ArrayList<>();
        lines.add(headers);
        for (JsonNode row : rows) {
            List<String> line = new ArrayList<>();
            for (Function<JsonNode, String> c : cells) {
                String v = c.apply(row);
                line.add(v == null || v.isEmpty() ? "-" : v.replaceAll("\\p{Cntrl}", "?"));
            }
            lines.add(line);
        }
        int[] width = new int[headers.size()];
        for (List<String> line : lines) {
            for (int i = 0; i < line.size(); i++) {
                width[i] = Math.max(width[i], line.get(i).length());
            }
        }
        List<String> out = new ArrayList<>();
        for (List<String> line : lines) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < line.size(); i++) {
                sb.append(line.get(i));
                if (i < line.size() - 1) {
                    sb.append(" ".repeat(width[i] - line.get(i).length() + 2));
                }
            }
            out.add(sb.toString().stripTrailing());
        }
        return out;
    }

    /** A value as one line of text: null and JSON null as null, arrays and objects as compact JSON. */
    static String text(JsonNode v) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            return null;
        }
        return v.isValueNode() ? v.asText() : v.toString();
    }

    /** Name: value lines, for one item; nested values as compact JSON. */
    static void describe(PrintWriter out, JsonNode item, String... names) {
        int width = 0;
        for (String n : names) {
            width = Math.max(width, n.length());
        }
        for (String n : names) {
            String v = text(item.get(n));
            if (v != null) {
                out.println(n + ":" + " ".repeat(width - n.length() + 1) + v.replaceAll("\\p{Cntrl}", "?"));
            }
        }
    }
}
