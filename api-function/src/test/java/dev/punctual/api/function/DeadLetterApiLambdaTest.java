package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.DeadRuns.claimAndDie;
import static dev.punctual.api.function.DeadRuns.deadRunsListed;
import static dev.punctual.api.function.DeadRuns.firstRunId;
import static dev.punctual.api.function.Problems.assertField;
import static dev.punctual.api.function.Problems.createJob;
import static dev.punctual.api.function.Problems.jobBody;
import static dev.punctual.api.function.Problems.later;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.punctual.core.Punctual;
import dev.punctual.core.run.RunState;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Dead letters through the real Lambda path: {@code GET /v1/runs?state=DEAD} and
 * {@code POST /v1/jobs/{id}/runs/{runId}/retry}. Runs are made DEAD by the repository's own claim and finish, as
 * an executor would.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class DeadLetterApiLambdaTest {
    @Inject
    Punctual punctual;

    @Test
    void listsDeadRunsNewestFirstPageByPageAndSearchesAcrossJobsOtherwise() throws Exception {
        List<String> made = new ArrayList<>(); // job ids (run ids are per occurrence: they may repeat across jobs)
        for (int i = 0; i < 3; i++) {
            made.add(0, deadRun("dl-page-" + i)[0]);
        }
        List<String> seen = new ArrayList<>();
        int pages = Listings.pageByPage(() -> given().queryParam("state", "DEAD"), "/v1/runs", page -> {
            assertThat(page.getList("items.state", String.class)).allMatch("DEAD"::equals);
            seen.addAll(page.getList("items.jobId", String.class));
        });
        assertThat(seen).containsSubsequence(made);
        assertThat(pages).isGreaterThanOrEqualTo(3);

        // Anything but state=DEAD alone is the search across jobs, newest due first: here the dead runs again
        // (not due yet: these are due an hour ahead), with their jobs' names.
        var across = given().queryParam("state", "DEAD")
                .queryParam("future", "true")
                .queryParam("limit", 100)
                .get("/v1/runs")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        assertThat(across.getList("items.jobId", String.class)).containsAll(made);
        assertThat(across.getList("items.jobName", String.class)).contains("dl-page-0", "dl-page-1", "dl-page-2");
        assertThat(given().queryParam("state", "FAILED")
                        .queryParam("future", "true")
                        .get("/v1/runs")
                        .then()
                        .statusCode(200)
                        .extract()
                        .jsonPath()
                        .getList("items.jobId", String.class))
                .doesNotContainAnyElementsOf(made);
        assertField(given().queryParam("state", "NOPE").get("/v1/runs"), 400, "state");
        assertField(given().queryParam("from", "yesterday").get("/v1/runs"), 400, "from");
        assertField(given().queryParam("state", "DEAD").queryParam("limit", 0).get("/v1/runs"), 400, "limit");
        assertField(
                given().queryParam("state", "DEAD")
                        .queryParam("cursor", "garbage")
                        .get("/v1/runs"),
                400,
                "cursor");
    }

    @Test
    void retryRequeuesADeadRunWithFreshAttemptsAndRefusesAnythingElse() throws Exception {
        String[] dead = deadRun("dl-retry");
        String jobId = dead[0];
        String runId = dead[1];
        String retry = "/v1/jobs/" + jobId + "/runs/" + runId + "/retry";

        given().post(retry)
                .then()
                .statusCode(202)
                .body("runId", equalTo(runId))
                .body("jobId", equalTo(jobId))
                .body("state", equalTo("QUEUED"))
                .body("attempt", equalTo(1))
                .body("maxAttempts", equalTo(3));
        assertThat(punctual.runs.get(jobId, runId).orElseThrow().state()).isEqualTo(RunState.QUEUED);
        deadRunsListed(given(), "jobId").forEach(id -> assertThat(id).isNotEqualTo(jobId));

        given().post(retry)
                .then()
                .statusCode(409)
                .contentType("application/problem+json")
                .body("status", equalTo(409))
                .body("field", equalTo("runId"));
        given().post("/v1/jobs/" + jobId + "/runs/run_nope/retry").then().statusCode(404);
        given().post("/v1/jobs/job_nope/runs/" + runId + "/retry").then().statusCode(404);
    }

    /** A job (once, in an hour; maxAttempts 2) whose run is claimed and finished DEAD: {jobId, runId}. */
    private String[] deadRun(String name) throws Exception {
        String at = later(1, ChronoUnit.HOURS);
        String jobId = createJob(jobBody(name, uploaded(name), Map.of("type", "once", "at", at), "maxAttempts", 2));
        String runId = firstRunId(jobId);
        // claimed at its due time: a claim wins only once the run is due
        claimAndDie(punctual, jobId, runId, Instant.parse(at), "ex-test", Instant.now(), c -> c);
        return new String[] {jobId, runId};
    }
}
