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

    /** The document of {@code metric} with {@code state} and {@code lane} ({@link Meters#LANE}). */
    public static JsonNode withMetric(List<JsonNode> docs, String metric, String state, String lane) {
        return docs.stream()
                .filter(d -> d.has(metric))
                .filter(d -> state.equals(d.path(Meters.STATE).asText()))
                .filter(d -> lane.equals(d.path(Meters.LANE).asText()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + metric + " " + state + " " + lane + " in " + docs));
    }

    /** A lane's queue depth in {@code state} in {@code docs}. */
    public static double queued(List<JsonNode> docs, String state, String lane) {
        return withMetric(docs, Meters.QUEUE_MESSAGES, state, lane)
                .path(Meters.QUEUE_MESSAGES)
                .asDouble();
    }

    /** The value of {@code metric} (with {@code state}) in {@code docs}. */
    public static double value(List<JsonNode> docs, String metric, String state) {
        return withMetric(docs, metric, state).path(metric).asDouble();
    }
}
