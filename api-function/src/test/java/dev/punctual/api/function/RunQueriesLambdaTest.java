package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.DeadRuns.claimAndDie;
import static dev.punctual.api.function.Problems.assertProblem;
import static dev.punctual.api.function.Problems.createJob;
import static dev.punctual.api.function.Problems.jobBody;
import static dev.punctual.api.function.Problems.later;
import static dev.punctual.api.function.Problems.postJson;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

import dev.punctual.core.Punctual;
import dev.punctual.core.run.RunIds;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A job's runs as a user asks for them through the real Lambda path: one run by its id, the runs due by now (the
 * future ones on request), narrowed by due time and state; and a query parameter no endpoint takes is a 400.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class RunQueriesLambdaTest {
    @Inject
    Punctual punctual;

    @Test
    void runsNotDueYetAreListedOnlyWhenAskedForAndEachRunCanBeRead() throws Exception {
        String at = later(1, ChronoUnit.HOURS);
        String id = createJob(jobBody("later", uploaded("later.sh"), Map.of("type", "once", "at", at)));

        given().get("/v1/jobs/" + id + "/runs").then().statusCode(200).body("items", hasSize(0));
        String runId = given().get("/v1/jobs/" + id + "/runs?future=true")
                .then()
                .statusCode(200)
                .body("items", hasSize(1))
                .body("items[0].state", equalTo("SCHEDULED"))
                .extract()
                .path("items[0].runId");
        given().get("/v1/jobs/" + id + "/runs?future=false").then().body("items", hasSize(0));

        given().get("/v1/jobs/" + id + "/runs/" + runId)
                .then()
                .statusCode(200)
                .body("jobId", equalTo(id))
                .body("runId", equalTo(runId))
                .body("state", equalTo("SCHEDULED"))
                .body("scheduledAt", equalTo(at));
        assertProblem(given().get("/v1/jobs/" + id + "/runs/20990101T000000.000Z"), 404);
        assertProblem(given().get("/v1/jobs/" + id + "/runs/not-a-run"), 404);
        assertProblem(given().get("/v1/jobs/job_nope/runs/" + runId), 404);
    }

    @Test
    void runsAreNarrowedByDueTimeAndByState() throws Exception {
        Instant start = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(10, ChronoUnit.MINUTES);
        String id = createJob(jobBody(
                "minutely",
                uploaded("minutely.sh"),
                Map.of("type", "interval", "every", "PT1M", "start", start.toString()),
                "maxAttempts",
                1));
        // Ten past runs, due at start + 0..9 minutes.
        postJson(
                        "/v1/jobs/" + id + "/backfill",
                        Map.of(
                                "from",
                                start.toString(),
                                "to",
                                start.plus(9, ChronoUnit.MINUTES).toString()))
                .then()
                .statusCode(202)
                .body("created", hasSize(10));

        List<String> window = given().queryParam(
                        "from", start.plus(3, ChronoUnit.MINUTES).toString())
                .queryParam("to", start.plus(5, ChronoUnit.MINUTES).toString())
                .get("/v1/jobs/" + id + "/runs")
                .then()
                .statusCode(200)
                .extract()
                .path("items.scheduledAt");
        assertThat(window)
                .as("newest first, both ends in")
                .containsExactly(
                        start.plus(5, ChronoUnit.MINUTES).toString(),
                        start.plus(4, ChronoUnit.MINUTES).toString(),
                        start.plus(3, ChronoUnit.MINUTES).toString());

        given().get("/v1/jobs/" + id + "/runs?state=DEAD").then().body("items", hasSize(0));
        Instant due = start.plus(4, ChronoUnit.MINUTES);
        claimAndDie(punctual, id, RunIds.forOccurrence(due), due, "ex-test", Instant.now(), c -> c);
        given().get("/v1/jobs/" + id + "/runs?state=DEAD")
                .then()
                .body("items", hasSize(1))
                .body("items[0].scheduledAt", equalTo(due.toString()));
        List<String> states = given().queryParam("state", "DEAD, SUCCEEDED")
                .queryParam("from", start.toString())
                .get("/v1/jobs/" + id + "/runs")
                .then()
                .statusCode(200)
                .extract()
                .path("items.state");
        assertThat(states).containsExactly("DEAD");
        // Every past run is due by now: the default listing shows all ten (and none that is not due yet).
        List<String> all = given().get("/v1/jobs/" + id + "/runs?limit=100")
                .then()
                .extract()
                .path("items.scheduledAt");
        assertThat(all)
                .hasSizeGreaterThanOrEqualTo(10)
                .allMatch(t -> !Instant.parse(t).isAfter(Instant.now()));
    }

    @Test
    void aDeletedJobsRunsThatWillNotStartReadCancelledAtOnce() throws Exception {
        // Due in 30 s: inside the lookahead, so the API queues it at once (no executor runs in these tests).
        String start =
                Instant.now().plusSeconds(30).truncatedTo(ChronoUnit.SECONDS).toString();
        String id = createJob(
                jobBody("queued", uploaded("queued.sh"), Map.of("type", "interval", "every", "PT1H", "start", start)));
        given().post("/v1/jobs/" + id + "/trigger").then().statusCode(202);
        // The first occurrence and the extra run are queued; the next occurrence, in an hour, is the pending run.
        List<String> before = given().get("/v1/jobs/" + id + "/runs?future=true")
                .then()
                .extract()
                .path("items.state");
        assertThat(before).containsExactlyInAnyOrder("SCHEDULED", "QUEUED", "QUEUED");

        given().delete("/v1/jobs/" + id).then().statusCode(204);
        given().get("/v1/jobs/" + id + "/runs?future=true")
                .then()
                .body("items", hasSize(3))
                .body("items.state", org.hamcrest.Matchers.everyItem(equalTo("CANCELLED")))
                .body("items.error", org.hamcrest.Matchers.everyItem(equalTo("job deleted")));
    }

    @Test
    void aBadFilterIsA400NamingIt() throws Exception {
        String id = createJob(
                jobBody("filters", uploaded("filters.sh"), Map.of("type", "once", "at", later(1, ChronoUnit.HOURS))));
        String runs = "/v1/jobs/" + id + "/runs";
        assertProblem(given().queryParam("state", "NOPE").get(runs), 400, "state")
                .body("detail", containsString("SUCCEEDED"));
        assertProblem(given().queryParam("from", "yesterday").get(runs), 400, "from");
        assertProblem(given().queryParam("to", "2026-13-01T00:00:00Z").get(runs), 400, "to");
        assertProblem(
                given().queryParam("from", "2026-01-02T00:00:00Z")
                        .queryParam("to", "2026-01-01T00:00:00Z")
                        .get(runs),
                400,
                "to");
        assertProblem(given().queryParam("future", "yes").get(runs), 400, "future");
    }

    @Test
    void aQueryParameterTheEndpointDoesNotTakeIsA400NamingIt() throws Exception {
        String id = createJob(
                jobBody("params", uploaded("params.sh"), Map.of("type", "once", "at", later(1, ChronoUnit.HOURS))));
        assertProblem(given().queryParam("limt", "5").get("/v1/jobs"), 400, "limt")
                .body("detail", containsString("limit, cursor"));
        assertProblem(given().queryParam("stat", "DEAD").get("/v1/jobs/" + id + "/runs"), 400, "stat");
        assertProblem(given().queryParam("force", "true").delete("/v1/jobs/" + id), 400, "force")
                .body("detail", containsString("takes none"));
        given().get("/v1/jobs/" + id).then().statusCode(200).body("state", equalTo("ACTIVE"));
        // The parameters an endpoint takes still pass.
        given().queryParam("limit", "1").get("/v1/jobs").then().statusCode(200);
        given().queryParam("count", "2").get("/v1/jobs/" + id + "/next").then().statusCode(200);
    }
}
