package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.jobBody;
import static dev.punctual.api.function.Problems.later;
import static dev.punctual.api.function.Problems.postJson;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Trigger, pause and resume through the real Lambda path: status codes and bodies, on the embedded emulators. */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class LifecycleApiLambdaTest {
    @Test
    void triggerPauseAndResumeAnswerWithTheRunOrTheJob() throws Exception {
        String start = later(1, ChronoUnit.DAYS);
        String id = createJob(start);

        given().post("/v1/jobs/" + id + "/trigger")
                .then()
                .statusCode(202)
                .contentType(ContentType.JSON)
                .body("jobId", equalTo(id))
                .body("state", equalTo("QUEUED"))
                .body("attempt", equalTo(0))
                .body("runId", matchesPattern("\\d{8}T\\d{6}\\.\\d{3}Z-t[0-9a-f]{6}"));
        given().get("/v1/jobs/" + id).then().body("nextRunAt", equalTo(start)).body("state", equalTo("ACTIVE"));
        given().get("/v1/jobs/" + id + "/runs?future=true").then().body("items.size()", equalTo(2));

        String pausedAt = given().post("/v1/jobs/" + id + "/pause")
                .then()
                .statusCode(200)
                .body("state", equalTo("PAUSED"))
                .body("pausedAt", notNullValue())
                .body("nextRunAt", nullValue())
                .body("version", equalTo(2))
                .extract()
                .path("pausedAt");
        given().post("/v1/jobs/" + id + "/pause")
                .then()
                .statusCode(200)
                .body("state", equalTo("PAUSED"))
                .body("pausedAt", equalTo(pausedAt))
                .body("version", equalTo(2));
        given().get("/v1/jobs/" + id + "/runs?future=true")
                .then()
                .body("items.find { it.scheduledAt == '" + start + "' }.state", equalTo("CANCELLED"));
        conflict(given().post("/v1/jobs/" + id + "/trigger"));

        postJson("/v1/jobs/" + id + "/resume", Map.of("catchUp", "sometimes"))
                .then()
                .statusCode(422)
                .contentType("application/problem+json")
                .body("field", equalTo("catchUp"));
        postJson("/v1/jobs/" + id + "/resume", Map.of("catchup", "all"))
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("field", equalTo("catchup"));
        given().get("/v1/jobs/" + id).then().body("state", equalTo("PAUSED"));

        postJson("/v1/jobs/" + id + "/resume", Map.of("catchUp", "latest"))
                .then()
                .statusCode(200)
                .body("state", equalTo("ACTIVE"))
                .body("nextRunAt", equalTo(start))
                .body("pausedAt", nullValue())
                .body("version", equalTo(3));
        conflict(given().post("/v1/jobs/" + id + "/resume"));

        // Without a body, resume applies the job's own catchUp (nothing was missed here).
        given().post("/v1/jobs/" + id + "/pause").then().statusCode(200);
        given().post("/v1/jobs/" + id + "/resume")
                .then()
                .statusCode(200)
                .body("state", equalTo("ACTIVE"))
                .body("nextRunAt", equalTo(start));
        given().get("/v1/jobs/" + id + "/runs?future=true")
                .then()
                .body("items.findAll { it.state == 'SCHEDULED' }.size()", equalTo(1));
    }

    @Test
    void aDeletedOrUnknownJobCannotBeTriggeredPausedOrResumed() throws Exception {
        String id = createJob(later(1, ChronoUnit.DAYS));
        given().delete("/v1/jobs/" + id).then().statusCode(204);

        conflict(given().post("/v1/jobs/" + id + "/trigger"));
        conflict(given().post("/v1/jobs/" + id + "/pause"));
        conflict(postJson("/v1/jobs/" + id + "/resume", Map.of("catchUp", "all")));
        given().get("/v1/jobs/" + id + "/runs?future=true").then().body("items.size()", equalTo(1));

        for (String op : new String[] {"trigger", "pause", "resume"}) {
            given().post("/v1/jobs/job_doesnotexist/" + op)
                    .then()
                    .statusCode(404)
                    .contentType("application/problem+json")
                    .body("type", equalTo("urn:punctual:problem:not-found"));
        }
    }

    @Test
    void aTriggerBodyOverridesArgsAndEnvForThatRunAndIsCheckedLikeAJobs() throws Exception {
        String id = createJob(later(1, ChronoUnit.DAYS));
        given().contentType(ContentType.JSON)
                .body(Map.of("args", List.of("--full"), "env", Map.of("MODE", "rebuild")))
                .post("/v1/jobs/" + id + "/trigger")
                .then()
                .statusCode(202)
                .body("args[0]", equalTo("--full"))
                .body("env.MODE", equalTo("rebuild"));
        Problems.assertProblem(
                given().contentType(ContentType.JSON)
                        .body(Map.of("env", Map.of("AWS_SECRET_ACCESS_KEY", "x")))
                        .post("/v1/jobs/" + id + "/trigger"),
                422,
                "env.AWS_SECRET_ACCESS_KEY");
        Problems.assertProblem(
                given().contentType(ContentType.JSON)
                        .body(Map.of("argz", List.of()))
                        .post("/v1/jobs/" + id + "/trigger"),
                400,
                "argz");
    }

    private static void conflict(io.restassured.response.Response r) {
        r.then()
                .statusCode(409)
                .contentType("application/problem+json")
                .body("type", equalTo("urn:punctual:problem:conflict"))
                .body("status", equalTo(409))
                .body("detail", notNullValue());
    }

    private static String createJob(String start) throws Exception {
        return Problems.createJob(jobBody(
                "paused-and-resumed",
                uploaded("lifecycle.sh"),
                Map.of("type", "interval", "every", "PT1H", "start", start)));
    }
}
