package dev.punctual.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.MockClock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

class EmfMeterRegistryTest {
    private final List<String> lines = new ArrayList<>();
    private final MockClock clock = new MockClock();
    private final Meters meters = new Meters(new EmfMeterRegistry("pfx", lines::add, clock));

    private List<JsonNode> published() {
        lines.clear();
        meters.flush();
        return EmfDocuments.parse(lines);
    }

    private static JsonNode withMetric(List<JsonNode> docs, String metric, String state) {
        return EmfDocuments.withMetric(docs, metric, state);
    }

    @Test
    void everyDocumentIsEmbeddedMetricFormatThatCloudWatchCanExtract() throws Exception {
        meters.transition("SUCCEEDED", 1, null);
        List<JsonNode> docs = published();
        JsonNode doc = withMetric(docs, Meters.RUNS, "SUCCEEDED");
        JsonNode directive = doc.path("_aws").path("CloudWatchMetrics").get(0);
        assertThat(doc.path("_aws").path("Timestamp").asLong()).isEqualTo(clock.wallTime());
        assertThat(directive.path("Namespace").asText()).isEqualTo("Punctual");
        assertThat(directive.path("Dimensions").get(0))
                .extracting(JsonNode::asText)
                .containsExactly("Prefix", "state");
        // Every dimension and metric the directive names is a member of the root, as EMF requires.
        assertThat(doc.path("Prefix").asText()).isEqualTo("pfx");
        List<String> named = StreamSupport.stream(directive.path("Metrics").spliterator(), false)
                .map(m -> m.path("Name").asText())
                .toList();
        assertThat(named).contains(Meters.RUNS);
        named.forEach(n -> assertThat(doc.has(n)).as(n).isTrue());
        assertThat(doc.path(Meters.RUNS).asDouble()).isEqualTo(1);
    }

    @Test
    void aLanesLatenessGoesOutByLaneAndUnderThePrefixAloneSoTheLanesAddUp() throws Exception {
        meters.transition("STARTED", 1, 40L, "high");
        meters.transition("STARTED", 1, 900L, "low");
        List<JsonNode> all = published();
        List<JsonNode> docs =
                all.stream().filter(d -> d.has(Meters.START_LATENESS)).toList();
        assertThat(docs).extracting(d -> d.path(Meters.LANE).asText()).containsExactlyInAnyOrder("high", "low");
        for (JsonNode d : docs) {
            JsonNode sets = d.path("_aws").path("CloudWatchMetrics").get(0).path("Dimensions");
            assertThat(sets).hasSize(2);
            assertThat(sets.get(0)).extracting(JsonNode::asText).containsExactly("Prefix", "lane");
            // The alarm's metric: dimension Prefix alone, every lane's values in it.
            assertThat(sets.get(1)).extracting(JsonNode::asText).containsExactly("Prefix");
        }
        // A meter without a lane keeps its one set.
        assertThat(withMetric(all, Meters.RUNS, "STARTED")
                        .path("_aws")
                        .path("CloudWatchMetrics")
                        .get(0)
                        .path("Dimensions"))
                .hasSize(1);
    }

    @Test
    void countersGoOutAsWhatTheyCountedSinceTheLastPublish() throws Exception {
        meters.retry();
        meters.retry();
        assertThat(withMetric(published(), Meters.RETRIES, null)
                        .path(Meters.RETRIES)
                        .asDouble())
                .isEqualTo(2);
        meters.retry();
        assertThat(withMetric(published(), Meters.RETRIES, null)
                        .path(Meters.RETRIES)
                        .asDouble())
                .isEqualTo(1);
        assertThat(withMetric(published(), Meters.RETRIES, null)
                        .path(Meters.RETRIES)
                        .asDouble())
                .isZero();
    }

    @Test
    void latenessGoesOutAsItsValuesInMillisecondsAHundredADocumentAndOnlyOnce() throws Exception {
        for (int i = 0; i < 150; i++) {
            meters.transition("STARTED", 1, (long) i);
        }
        meters.transition("STARTED", 1, -5L);
        meters.transition("STARTED", 2, 9_999L);
        List<JsonNode> docs = published();
        List<Double> values = new ArrayList<>();
        for (JsonNode d : docs) {
            JsonNode v = d.path(Meters.START_LATENESS);
            if (v.isArray()) {
                assertThat(v.size()).isLessThanOrEqualTo(100);
                assertThat(d.path("_aws")
                                .path("CloudWatchMetrics")
                                .get(0)
                                .path("Metrics")
                                .findValuesAsText("Unit"))
                        .contains("Milliseconds");
                v.forEach(x -> values.add(x.asDouble()));
            }
        }
        assertThat(values).hasSize(151).contains(0.0, 149.0).doesNotContain(-5.0, 9_999.0);
        assertThat(published().stream().filter(d -> d.has(Meters.START_LATENESS)))
                .isEmpty();
    }

    @Test
    void gaugesGoOutAsTheirValues() throws Exception {
        meters.slotsAdded(4);
        meters.slotTaken();
        meters.queueDepth("normal", 3, 2, 1);
        meters.queueDepth("high", 7, 0, 5);
        List<JsonNode> docs = published();
        assertThat(withMetric(docs, Meters.SLOTS, null).path(Meters.SLOTS).asDouble())
                .isEqualTo(4);
        assertThat(withMetric(docs, Meters.SLOTS_BUSY, null)
                        .path(Meters.SLOTS_BUSY)
                        .asDouble())
                .isEqualTo(1);
        assertThat(EmfDocuments.queued(docs, "visible", "normal")).isEqualTo(3);
        assertThat(EmfDocuments.queued(docs, "delayed", "normal")).isEqualTo(2);
        assertThat(EmfDocuments.queued(docs, "in_flight", "normal")).isEqualTo(1);
        assertThat(EmfDocuments.queued(docs, "visible", "high")).isEqualTo(7);
        assertThat(EmfDocuments.queued(docs, "in_flight", "high")).isEqualTo(5);
    }
}
