package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.assertProblem;
import static dev.punctual.api.function.Problems.hourlyJob;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Through the real Lambda path: {@code Idempotency-Key} on create, labels and the job list's filters, and the note a
 * pause carries.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class IdempotencyAndLabelsLambdaTest {
    private static Response create(String key, Object body) {
        var req = given().contentType(ContentType.JSON);
        if (key != null) {
            req = req.header("Idempotency-Key", key);
        }
        return req.body(body).post("/v1/jobs");
    }

    @Test
    void aRepeatedCreateWithTheSameKeyAnswersWithTheSameJob() throws Exception {
        String key = UUID.randomUUID().toString();
        Map<String, Object> body = hourlyJob("idempotent", uploaded("idem.sh"));
        Response first = create(key, body);
        first.then().statusCode(201).header("Idempotent-Replayed", nullValue());
        Response again = create(key, body);
        again.then()
                .statusCode(201)
                .header("Idempotent-Replayed", "true")
                .header("Location", first.header("Location"))
                .body("id", equalTo(first.path("id")));

        Map<String, Object> other = hourlyJob("idempotent-but-other", (String) body.get("binaryId"));
        assertProblem(create(key, other), 422, "Idempotency-Key");
        assertProblem(create("not a key", body), 400, "Idempotency-Key");
        // Without a key, the same body makes another job.
        assertThat(create(null, body).<String>path("id")).isNotEqualTo(first.path("id"));
    }

    @Test
    void jobsCarryLabelsAndTheListFiltersByThemByStateAndByNamePrefix() throws Exception {
        String team = "t" + UUID.randomUUID().toString().substring(0, 8);
        String binaryId = uploaded("labels.sh");
        Map<String, Object> gold = hourlyJob(team + "-gold", binaryId);
        gold.put("labels", Map.of("team", team, "tier", "gold"));
        Map<String, Object> plain = hourlyJob(team + "-plain", binaryId);
        plain.put("labels", Map.of("team", team));
        String goldId = create(null, gold)
                .then()
                .statusCode(201)
                .body("labels.tier", equalTo("gold"))
                .extract()
                .path("id");
        create(null, plain).then().statusCode(201);

        assertThat(names("label", "team=" + team)).containsExactly(team + "-gold", team + "-plain");
        assertThat(names("label", "team=" + team + ",tier=gold")).containsExactly(team + "-gold");
        assertThat(names("namePrefix", team + "-p")).containsExactly(team + "-plain");

        given().contentType(ContentType.JSON)
                .body(Map.of("note", "waiting for the vendor"))
                .post("/v1/jobs/" + goldId + "/pause")
                .then()
                .statusCode(200)
                .body("state", equalTo("PAUSED"))
                .body("pauseNote", equalTo("waiting for the vendor"));
        assertThat(names("state", "PAUSED")).contains(team + "-gold").doesNotContain(team + "-plain");
        given().get("/v1/jobs/" + goldId).then().body("pauseNote", equalTo("waiting for the vendor"));

        assertProblem(given().queryParam("label", "team=a b").get("/v1/jobs"), 400, "label");
        Map<String, Object> bad = hourlyJob(team + "-bad", binaryId);
        bad.put("labels", Map.of("-x", "y"));
        assertProblem(create(null, bad), 422, "labels.-x");
    }

    /** The names of the jobs listed with {@code param=value}, every page read (a filtered page may be short). */
    private static List<String> names(String param, String value) {
        List<String> out = new ArrayList<>();
        String cursor = null;
        do {
            var req = given().queryParam(param, value).queryParam("limit", 100);
            if (cursor != null) {
                req = req.queryParam("cursor", cursor);
            }
            var page = req.get("/v1/jobs").then().statusCode(200).extract();
            out.addAll(page.<List<String>>path("items.name"));
            cursor = page.path("nextCursor");
        } while (cursor != null);
        return out;
    }
}
