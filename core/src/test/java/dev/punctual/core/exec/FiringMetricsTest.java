package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FiringMetricsTest {
    @Test
    void latenessIsAnEmbeddedMetricFormatDocumentCloudWatchCanExtract() throws Exception {
        Instant at = Instant.parse("2030-01-01T10:00:00.250Z");
        JsonNode line = new ObjectMapper().readTree(FiringMetrics.latenessLine("punctual", Duration.ofMillis(250), at));
        JsonNode directive = line.path("_aws").path("CloudWatchMetrics").get(0);
        assertThat(line.path("_aws").path("Timestamp").asLong()).isEqualTo(at.toEpochMilli());
        assertThat(directive.path("Namespace").asText()).isEqualTo("Punctual");
        assertThat(directive.path("Dimensions").get(0).get(0).asText()).isEqualTo("Prefix");
        assertThat(directive.path("Metrics").get(0).path("Name").asText()).isEqualTo("FiringLatenessMs");
        assertThat(directive.path("Metrics").get(0).path("Unit").asText()).isEqualTo("Milliseconds");
        // Every dimension and metric the directive names is a top-level member, as EMF requires.
        assertThat(line.path("Prefix").asText()).isEqualTo("punctual");
        assertThat(line.path("FiringLatenessMs").asLong()).isEqualTo(250);
    }

    @Test
    void anEarlyStartIsReportedAsZeroNotNegative() throws Exception {
        JsonNode line =
                new ObjectMapper().readTree(FiringMetrics.latenessLine("p", Duration.ofMillis(-3), Instant.EPOCH));
        assertThat(line.path("FiringLatenessMs").asLong()).isZero();
    }
}
