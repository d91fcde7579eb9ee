package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.assertProblem;
import static dev.punctual.api.function.Problems.countJobs;
import static dev.punctual.api.function.Problems.createJob;
import static dev.punctual.api.function.Problems.hourlyJob;
import static dev.punctual.api.function.Problems.postJson;
import static dev.punctual.api.function.Problems.putIfMatch;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Request bodies: only {@code application/json} (415 otherwise, also without a content type), strict JSON (no
 * truncated floats, no coerced scalars, no duplicate keys: 400 naming the field) and a size limit (413).
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class RequestBodyLambdaTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static String binaryId;

    private static String binary() throws Exception {
        if (binaryId == null) {
            binaryId = uploaded("body.sh");
        }
        return binaryId;
    }

    private static String job(String name) throws Exception {
        return JSON.writeValueAsString(hourlyJob(name, binary()));
    }

    /** Sends {@code body} with exactly the given content type (none when null): RestAssured would add one. */
    private static Gateway.Raw send(String method, String path, String contentType, String body) throws Exception {
        return Gateway.invoke(
                method,
                path,
                contentType == null ? Map.of() : Map.of("content-type", contentType),
                body.isEmpty() ? null : body,
                Gateway.DEFAULT_USER);
    }

    private static void assertUnsupported(Gateway.Raw r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(415);
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.body()).contains("\"status\":415");
    }

    @Test
    void aJobBodyWithoutAContentTypeIsUnsupportedAndCreatesNothing() throws Exception {
        int before = countJobs();
        assertUnsupported(send("POST", "/v1/jobs", null, job("no-type")));
        assertUnsupported(send("POST", "/v1/jobs", "text/plain", job("text")));
        assertUnsupported(send("POST", "/v1/jobs", "application/x-www-form-urlencoded", job("form")));
        assertThat(countJobs()).isEqualTo(before);
        assertThat(send("POST", "/v1/jobs", "application/json; charset=utf-8", job("typed"))
                        .statusCode())
                .isEqualTo(201);
    }

    @Test
    void everyRouteWithABodyRequiresJson() throws Exception {
        String id = createJob(hourlyJob("typed-routes", binary()));
        assertUnsupported(send(
                "POST", "/v1/binaries", null, "{\"name\":\"a\",\"sha256\":\"" + "0".repeat(64) + "\",\"size\":1}"));
        assertUnsupported(send("PUT", "/v1/jobs/" + id, null, job("put")));
        assertUnsupported(send("POST", "/v1/jobs/" + id + "/backfill", "text/plain", "{}"));
        assertUnsupported(send("POST", "/v1/schedules/preview", null, "{\"schedule\":{\"type\":\"now\"}}"));
    }

    @Test
    void resumeTakesNoBodyOrAJsonOne() throws Exception {
        String id = createJob(hourlyJob("resume-typed", binary()));
        given().post("/v1/jobs/" + id + "/pause").then().statusCode(200);
        assertUnsupported(send("POST", "/v1/jobs/" + id + "/resume", "text/plain", "{\"catchUp\":\"skip\"}"));
        assertUnsupported(send("POST", "/v1/jobs/" + id + "/resume", null, "{\"catchUp\":\"skip\"}"));
        given().get("/v1/jobs/" + id).then().body("state", equalTo("PAUSED"));
        assertThat(send("POST", "/v1/jobs/" + id + "/resume", null, "").statusCode())
                .isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.5", "30.0", "\"30\"", "true", "3e1"})
    void timeoutSecondsMustBeAnInteger(String value) throws Exception {
        String body = job("strict").replaceFirst("^\\{", "{\"timeoutSeconds\":" + value + ",");
        assertProblem(postJson("/v1/jobs", body), 400, "timeoutSeconds");
    }

    @Test
    void scalarsAreNotCoercedToStrings() throws Exception {
        assertProblem(postJson("/v1/jobs", job("x").replace("\"name\":\"x\"", "\"name\":5")), 400, "name");
        assertProblem(postJson("/v1/jobs", job("x").replaceFirst("^\\{", "{\"args\":[1],")), 400, "args[0]");
        assertProblem(
                postJson("/v1/jobs", job("x").replaceFirst("^\\{", "{\"env\":{\"DEBUG\":true},")), 400, "env.DEBUG");
        assertProblem(
                postJson("/v1/schedules/preview", "{\"schedule\":{\"type\":\"now\"},\"count\":\"5\"}"), 400, "count");
        assertProblem(
                postJson("/v1/schedules/preview", "{\"schedule\":{\"type\":\"dates\",\"dates\":[20300101]}}"),
                400,
                "schedule.dates[0]");
    }

    @Test
    void duplicateKeysAreRejected() throws Exception {
        int before = countJobs();
        String twice = job("first").replaceFirst("^\\{", "{\"name\":\"second\",");
        assertProblem(postJson("/v1/jobs", twice), 400, "name");
        assertThat(countJobs()).isEqualTo(before);
    }

    @Test
    void resumeReadsItsBodyAsStrictly() throws Exception {
        String id = createJob(hourlyJob("resume-strict", binary()));
        given().post("/v1/jobs/" + id + "/pause").then().statusCode(200);
        assertProblem(postJson("/v1/jobs/" + id + "/resume", "{\"catchUp\":5}"), 400, "catchUp");
        assertProblem(
                postJson("/v1/jobs/" + id + "/resume", "{\"catchUp\":\"skip\",\"catchUp\":\"all\"}"), 400, "catchUp");
        given().get("/v1/jobs/" + id).then().body("state", equalTo("PAUSED"));
    }

    @Test
    void aBodyOverTheLimitIsTooLarge() throws Exception {
        int before = countJobs();
        String padded = job("huge").replaceFirst("\\}$", " ".repeat(1_100_000) + "}");
        assertProblem(postJson("/v1/jobs", padded), 413);
        assertThat(countJobs()).isEqualTo(before);
    }

    @Test
    void aStaleIfMatchFailsThePreconditionAndAStarMatchesAnyVersion() throws Exception {
        Map<String, Object> body = hourlyJob("if-match", binary());
        String id = createJob(body);
        assertProblem(putIfMatch("/v1/jobs/" + id, "\"7\"", body), 412, "If-Match");
        given().get("/v1/jobs/" + id).then().header("ETag", "\"1\"");
        // The same body again defines the job as it is: nothing changes, the version included.
        putIfMatch("/v1/jobs/" + id, "*", body).then().statusCode(200).header("ETag", "\"1\"");
        body.put("maxAttempts", 4);
        putIfMatch("/v1/jobs/" + id, "*", body).then().statusCode(200).header("ETag", "\"2\"");
        body.put("maxAttempts", 5);
        putIfMatch("/v1/jobs/" + id, "*", body).then().statusCode(200).header("ETag", "\"3\"");
        given().delete("/v1/jobs/" + id).then().statusCode(204);
        assertProblem(putIfMatch("/v1/jobs/" + id, "*", body), 404);
        assertProblem(putIfMatch("/v1/jobs/job_aaaaaaaaaaaaaaaaaaaa", "*", body), 404);
    }

    @Test
    void aDryRunAnswersWithTheJobAsItWouldBeAndWritesNothing() throws Exception {
        Map<String, Object> body = hourlyJob("dry-run", binary());
        String id = createJob(body);
        int before = countJobs();

        body.put("maxAttempts", 6);
        putIfMatch("/v1/jobs/" + id + "?dryRun=true", "\"1\"", body)
                .then()
                .statusCode(200)
                .header("ETag", "\"1\"")
                .body("maxAttempts", equalTo(6))
                .body("id", equalTo(id));
        given().get("/v1/jobs/" + id).then().header("ETag", "\"1\"").body("maxAttempts", equalTo(3));
        // Checked as the write would be: a stale version and a bad field are refused the same way.
        assertProblem(putIfMatch("/v1/jobs/" + id + "?dryRun=true", "\"7\"", body), 412, "If-Match");
        body.put("maxAttempts", 0);
        assertProblem(putIfMatch("/v1/jobs/" + id + "?dryRun=true", "*", body), 422, "maxAttempts");
        assertProblem(putIfMatch("/v1/jobs/" + id + "?dryRun=maybe", "*", body), 400, "dryRun");

        // A creation's dry run: the job it would make, without an id, and no job made.
        postJson("/v1/jobs?dryRun=true", hourlyJob("dry-new", binary()))
                .then()
                .statusCode(200)
                .body("id", org.hamcrest.Matchers.nullValue())
                .body("name", equalTo("dry-new"))
                .body("state", equalTo("ACTIVE"));
        Map<String, Object> bad = hourlyJob("dry-bad", binary());
        bad.put("timeoutSeconds", -1);
        assertProblem(postJson("/v1/jobs?dryRun=true", bad), 422, "timeoutSeconds");
        assertThat(countJobs()).isEqualTo(before);
    }
}
