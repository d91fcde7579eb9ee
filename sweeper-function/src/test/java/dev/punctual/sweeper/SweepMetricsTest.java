package dev.punctual.sweeper;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.core.Punctual;
import dev.punctual.core.metrics.EmfMeterRegistry;
import dev.punctual.core.metrics.Meters;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With {@code punctual.emf-metrics} (as the Terraform module sets it), every invocation writes the sweep's meters
 * as Embedded Metric Format lines on stdout before it returns: a Lambda's process may be frozen right after.
 */
@QuarkusTest
@TestProfile(SweepMetricsTest.Emf.class)
@WithTestResource(EmulatorsTestResource.class)
class SweepMetricsTest {
    public static class Emf implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("punctual.emf-metrics", "true");
        }
    }

    private static final String EVENT = """
            {"version":"0","id":"e2","detail-type":"Scheduled Event","source":"aws.events","detail":{}}""";

    @Inject
    Punctual punctual;

    @Test
    void eachInvocationWritesItsMetersAsEmbeddedMetricFormatBeforeItReturns() throws Exception {
        assertThat(punctual.meters.registry()).isInstanceOf(EmfMeterRegistry.class);
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            given().contentType(ContentType.JSON)
                    .body(EVENT)
                    .when()
                    .post()
                    .then()
                    .statusCode(200);
        } finally {
            System.setOut(original);
        }
        // Read once the invocation has answered: nothing written later (on a timer) would count.
        List<JsonNode> documents = new ArrayList<>();
        for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("{\"_aws\"")) {
                documents.add(new ObjectMapper().readTree(line));
            }
        }
        assertThat(documents).anySatisfy(d -> {
            assertThat(d.path("_aws")
                            .path("CloudWatchMetrics")
                            .get(0)
                            .path("Namespace")
                            .asText())
                    .isEqualTo(EmfMeterRegistry.NAMESPACE);
            assertThat(d.path(EmfMeterRegistry.DIMENSION).asText())
                    .isEqualTo(punctual.settings.deployment().prefix());
            assertThat(d.path(Meters.STATE).asText()).isEqualTo("visible");
            assertThat(d.has(Meters.QUEUE_MESSAGES)).isTrue();
        });
    }
}
