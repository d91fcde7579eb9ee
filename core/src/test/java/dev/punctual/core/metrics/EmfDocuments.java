package dev.punctual.core.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Reads the Embedded Metric Format lines an {@link EmfMeterRegistry} wrote, for tests. */
public final class EmfDocuments {
    private static final ObjectMapper JSON = new ObjectMapper();

    private EmfDocuments() {}

    public static List<JsonNode> parse(List<String> lines) {
        List<JsonNode> out = new ArrayList<>();
        for (String l : lines) {
            try {
                out.add(JSON.readTree(l));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** The document that carries {@code metric} with the state dimension {@code state} (null: none). */
    public static JsonNode withMetric(List<JsonNode> docs, String metric, String state) {
        return docs.stream()
                .filter(d -> d.has(metric))
                .filter(d -> state == null
                        ? !d.has(Meters.STATE)
                        : state.equals(d.path(Meters.STATE).asText()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + metric + " " + state + " in " + docs));
    }

    /** The value of {@code metric} (with {@code state}) in {@code docs}. */
    public static double value(List<JsonNode> docs, String metric, String state) {
        return withMetric(docs, metric, state).path(metric).asDouble();
    }
}
