package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.jobBody;
import static dev.punctual.api.function.Problems.later;
import static dev.punctual.api.function.Problems.postJson;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Quotas answer 429 problem+json with Retry-After and write nothing; secrets come back as names only; a job's run
 * limits are kept, and more than this deployment's maximum is refused naming the field.
 */
@QuarkusTest
@TestProfile(QuotaAndSecretsLambdaTest.TightQuotas.class)
@WithTestResource(EmulatorsTestResource.class)
class QuotaAndSecretsLambdaTest {
    public static class TightQuotas implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "punctual.quota-triggers-per-minute",
                    "1",
                    "punctual.quota-runs-per-minute",
                    "15",
                    "punctual.limits-memory-mb",
                    "512");
        }
    }

    private static Map<String, Object> job(String binaryId, Map<String, Object> schedule) {
        return jobBody("q", binaryId, schedule, "secrets", Map.of("API_TOKEN", "do-not-show-me"));
    }

    @Test
    void overAQuotaIs429WithRetryAfterAndNothingIsWritten() throws Exception {
        String binaryId = uploaded("quota.sh");
        String start = later(1, ChronoUnit.DAYS);
        Response created =
                postJson("/v1/jobs", job(binaryId, Map.of("type", "interval", "every", "PT5S", "start", start)));
        created.then().statusCode(201).body("secrets", contains("API_TOKEN"));
        assertThat(created.asString()).doesNotContain("do-not-show-me");
        String id = created.path("id");

        Response tooFast = postJson("/v1/jobs", job(binaryId, Map.of("type", "interval", "every", "PT10S")));
        tooFast.then()
                .statusCode(429)
                .contentType("application/problem+json")
                .body("type", equalTo("urn:punctual:problem:quota-exceeded"))
                .body("field", equalTo("runsPerMinute"));
        assertThat(tooFast.header("Retry-After")).isNotNull();
        given().queryParam("limit", 100).get("/v1/jobs").then().body("items.size()", equalTo(1));

        int triggered = 0;
        Response r;
        // The minute may turn between two triggers; within three calls one must hit the one-per-minute quota.
        do {
            r = given().post("/v1/jobs/" + id + "/trigger");
            triggered += r.statusCode() == 202 ? 1 : 0;
        } while (r.statusCode() == 202 && triggered < 3);
        r.then().statusCode(429).body("field", equalTo("triggersPerMinute"));
        assertThat(Integer.parseInt(r.header("Retry-After"))).isBetween(1, 60);
        given().get("/v1/jobs/" + id + "/runs?future=true")
                .then()
                .body("items.size()", equalTo(1 + triggered))
                .body(not(org.hamcrest.Matchers.containsString("do-not-show-me")));
    }

    @Test
    void runLimitsAreKeptAndMoreThanTheDeploymentsMaximumIsA422NamingTheField() throws Exception {
        String binaryId = uploaded("limits.sh");
        Map<String, Object> once = Map.of("type", "once", "at", later(1, ChronoUnit.DAYS));
        Response tooMuch =
                postJson("/v1/jobs", jobBody("big", binaryId, once, "limits", Map.of("memoryMb", 513, "processes", 0)));
        tooMuch.then()
                .statusCode(422)
                .contentType("application/problem+json")
                .body("errors.field", org.hamcrest.Matchers.containsInAnyOrder("limits.memoryMb", "limits.processes"))
                .body(
                        "errors.find { it.field == 'limits.memoryMb' }.message",
                        org.hamcrest.Matchers.containsString("at most 512"));
        postJson("/v1/jobs", jobBody("odd", binaryId, once, "limits", Map.of("memoryMB", 64)))
                .then()
                .statusCode(400)
                .body(org.hamcrest.Matchers.containsString("memoryMB"));

        Response created = postJson(
                "/v1/jobs", jobBody("small", binaryId, once, "limits", Map.of("memoryMb", 256, "cpuSeconds", 30)));
        created.then()
                .statusCode(201)
                .body("limits.memoryMb", equalTo(256))
                .body("limits.cpuSeconds", equalTo(30))
                .body("limits.processes", org.hamcrest.Matchers.nullValue());
        given().get("/v1/jobs/" + created.path("id")).then().statusCode(200).body("limits.memoryMb", equalTo(256));
    }
}
