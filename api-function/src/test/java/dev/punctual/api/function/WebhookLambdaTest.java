package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.assertProblem;
import static dev.punctual.api.function.Problems.hourlyJob;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A job's webhook through the real Lambda path: shown without its secret, a URL into the operator's network refused
 * with a problem naming the field (this deployment's default: https to public addresses only).
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class WebhookLambdaTest {
    private static final String SECRET = "never-shown-again-0123456789";

    @Test
    void aJobsWebhookIsShownWithoutItsSecret() throws Exception {
        Map<String, Object> body = hourlyJob("hooked", uploaded("hooked.sh"));
        body.put(
                "webhook",
                Map.of("url", "https://hooks.example.com/punctual", "secret", SECRET, "on", List.of("FAILED", "DEAD")));
        String id = given().contentType(ContentType.JSON)
                .body(body)
                .post("/v1/jobs")
                .then()
                .statusCode(201)
                .body("webhook.url", equalTo("https://hooks.example.com/punctual"))
                .body("webhook.on", contains("FAILED", "DEAD"))
                .extract()
                .path("id");

        String shown =
                given().get("/v1/jobs/" + id).then().statusCode(200).extract().asString();
        assertThat(shown).contains("hooks.example.com").doesNotContain(SECRET).doesNotContain("\"secret\"");
    }

    @Test
    void aWebhookIntoTheNetworkOrWithoutASecretIsRefusedNamingTheField() throws Exception {
        String binaryId = uploaded("refused-hook.sh");
        Map<String, Object> metadata = hourlyJob("metadata", binaryId);
        metadata.put("webhook", Map.of("url", "https://169.254.169.254/latest/meta-data", "secret", SECRET));
        assertProblem(given().contentType(ContentType.JSON).body(metadata).post("/v1/jobs"), 422, "webhook.url");

        Map<String, Object> plain = hourlyJob("plain-http", binaryId);
        plain.put("webhook", Map.of("url", "http://hooks.example.com/x", "secret", SECRET));
        assertProblem(given().contentType(ContentType.JSON).body(plain).post("/v1/jobs"), 422, "webhook.url");

        Map<String, Object> unsigned = hourlyJob("unsigned", binaryId);
        unsigned.put("webhook", Map.of("url", "https://hooks.example.com/x"));
        assertProblem(given().contentType(ContentType.JSON).body(unsigned).post("/v1/jobs"), 422, "webhook.secret");

        Map<String, Object> unknown = hourlyJob("unknown-field", binaryId);
        unknown.put("webhook", Map.of("url", "https://hooks.example.com/x", "secret", SECRET, "retries", 9));
        assertProblem(given().contentType(ContentType.JSON).body(unknown).post("/v1/jobs"), 400, "webhook.retries");
    }
}
