package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.postJson;
import static dev.punctual.api.function.Problems.putIfMatch;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Firing policies, {@code PUT} with {@code If-Match}, and backfill through the real Lambda path. */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class UpdateApiLambdaTest {

    private static Map<String, Object> body(String binaryId, String every, String start) {
        Map<String, Object> b = new HashMap<>();
        b.put("name", "updated");
        b.put("binaryId", binaryId);
        b.put("schedule", Map.of("type", "interval", "every", every, "start", start));
        return b;
    }

    @Test
    void firingPoliciesAreShownWithTheirDefaultsAndUpdatesNeedTheCurrentETag() throws Exception {
        String binaryId = uploaded("update.sh");
        Instant tomorrow = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        Map<String, Object> create = body(binaryId, "PT1H", tomorrow.toString());
        create.put("catchUp", "latest");
        String id = postJson("/v1/jobs", create)
                .then()
                .statusCode(201)
                .header("ETag", "\"1\"")
                .body("catchUp.mode", equalTo("latest"))
                .body("catchUp.maxAge", equalTo("PT24H"))
                .body("catchUp.maxRuns", equalTo(100))
                .body("overlap", equalTo("allow"))
                .body("maxRunAge", equalTo("PT24H"))
                .body("maxConcurrency", equalTo(1))
                .body("priority", equalTo("normal"))
                .body("jitter", equalTo(null))
                .extract()
                .path("id");
        given().get("/v1/jobs/" + id).then().statusCode(200).header("ETag", "\"1\"");

        Map<String, Object> update =
                body(binaryId, "PT2H", tomorrow.plus(1, ChronoUnit.HOURS).toString());
        update.put("jitter", Map.of("mode", "hashed", "max", "PT5M"));
        update.put("catchUp", Map.of("mode", "all", "maxAge", "PT6H", "maxRuns", 10));
        update.put("overlap", "forbid");
        update.put("maxRunAge", "PT2H");
        update.put("maxConcurrency", 3);
        update.put("priority", "low");

        given().contentType(ContentType.JSON)
                .body(update)
                .put("/v1/jobs/" + id)
                .then()
                .statusCode(428)
                .contentType("application/problem+json")
                .body("field", equalTo("If-Match"));
        putIfMatch("/v1/jobs/" + id, "\"7\"", update)
                .then()
                .statusCode(412)
                .contentType("application/problem+json")
                .body("type", equalTo("urn:punctual:problem:precondition-failed"));
        Map<String, Object> bad = new HashMap<>(update);
        bad.put("jitter", Map.of("mode", "wild", "max", "PT5M"));
        putIfMatch("/v1/jobs/" + id, "\"1\"", bad)
                .then()
                .statusCode(422)
                .contentType("application/problem+json")
                .body("field", equalTo("jitter.mode"));
        given().get("/v1/jobs/" + id).then().header("ETag", "\"1\"").body("schedule.every", equalTo("PT1H"));

        putIfMatch("/v1/jobs/" + id, "\"1\"", update)
                .then()
                .statusCode(200)
                .header("ETag", "\"2\"")
                .body("version", equalTo(2))
                .body("schedule.every", equalTo("PT2H"))
                .body("jitter.mode", equalTo("hashed"))
                .body("jitter.max", equalTo("PT5M"))
                .body("catchUp.maxRuns", equalTo(10))
                .body("overlap", equalTo("forbid"))
                .body("maxRunAge", equalTo("PT2H"))
                .body("maxConcurrency", equalTo(3))
                .body("priority", equalTo("low"));
        given().get("/v1/jobs/" + id + "/runs?future=true")
                .then()
                .body("items.findAll { it.state == 'SCHEDULED' }", hasSize(1))
                .body("items.findAll { it.state == 'CANCELLED' }", hasSize(1));
    }

    @Test
    void aConcurrencyLimitWhereEveryRunStartsIsRefusedNamingTheField() throws Exception {
        String binaryId = uploaded("limit.sh");
        Instant tomorrow = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
        Map<String, Object> create = body(binaryId, "PT1H", tomorrow.toString());
        create.put("maxConcurrency", 2);
        postJson("/v1/jobs", create)
                .then()
                .statusCode(422)
                .contentType("application/problem+json")
                .body("errors.field", org.hamcrest.Matchers.contains("maxConcurrency"));
        create.put("overlap", "queue");
        create.put("maxConcurrency", 26);
        postJson("/v1/jobs", create)
                .then()
                .statusCode(422)
                .body("errors.field", org.hamcrest.Matchers.contains("maxConcurrency"));
        create.put("maxConcurrency", 2);
        create.put("priority", "urgent");
        postJson("/v1/jobs", create)
                .then()
                .statusCode(422)
                .body("errors.field", org.hamcrest.Matchers.contains("priority"));
        create.put("priority", "high");
        postJson("/v1/jobs", create)
                .then()
                .statusCode(201)
                .body("maxConcurrency", equalTo(2))
                .body("priority", equalTo("high"));
    }

    @Test
    void backfillCreatesPastRunsAndNamesTheBadField() throws Exception {
        String binaryId = uploaded("backfill.sh");
        Instant now = Instant.now().truncatedTo(ChronoUnit.MINUTES);
        String id = postJson(
                        "/v1/jobs",
                        body(binaryId, "PT1H", now.plus(1, ChronoUnit.HOURS).toString()))
                .then()
                .statusCode(201)
                .extract()
                .path("id");

        // The schedule's occurrences are start + k hours, k ≥ 0: none before start, so nothing in the past.
        postJson(
                        "/v1/jobs/" + id + "/backfill",
                        Map.of("from", now.minus(3, ChronoUnit.HOURS).toString(), "to", now.toString()))
                .then()
                .statusCode(202)
                .body("occurrences", equalTo(0))
                .body("created", hasSize(0));
        postJson(
                        "/v1/jobs/" + id + "/backfill",
                        Map.of(
                                "from",
                                now.toString(),
                                "to",
                                now.plus(2, ChronoUnit.HOURS).toString()))
                .then()
                .statusCode(422)
                .contentType("application/problem+json")
                .body("field", equalTo("to"));
        given().get("/v1/jobs/" + id + "/runs?future=true").then().body("items", hasSize(1));
    }
}
