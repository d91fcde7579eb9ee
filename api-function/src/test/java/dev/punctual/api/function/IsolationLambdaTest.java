package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.DeadRuns.claimAndDie;
import static dev.punctual.api.function.DeadRuns.deadRunsListed;
import static dev.punctual.api.function.DeadRuns.firstRunId;
import static dev.punctual.api.function.Listings.listed;
import static dev.punctual.api.function.Problems.createJob;
import static dev.punctual.api.function.Problems.jobBody;
import static dev.punctual.api.function.Problems.later;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.punctual.core.Punctual;
import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.run.RunState;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tenancy where the owner is decided: API Gateway v2 events carrying two users' verified claims (see
 * {@link Gateway}). Bob must not see, list, use or change anything of Alice's, through any route; each object-level
 * refusal is a 404 problem (never a 500, never Alice's data), and Alice's objects are unchanged afterwards.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class IsolationLambdaTest {
    private static final String ALICE = "alice-iso";
    private static final String BOB = "bob-iso";

    @Inject
    Punctual punctual;

    // Made once (RestAssured is set up per test, so not in @BeforeAll) and shared: every test only reads them.
    private static String binaryId;
    private static String jobId;
    private static String deadJobId;
    private static String deadRunId;
    private static boolean ready;

    static RequestSpecification as(String user) {
        return given().header(Gateway.USER, user);
    }

    @BeforeEach
    void alicesObjects() throws Exception {
        if (ready) {
            return;
        }
        binaryId = as(ALICE)
                .contentType(ContentType.JSON)
                .body(Map.of("name", "a", "sha256", "0".repeat(64), "size", 1))
                .post("/v1/binaries")
                .then()
                .statusCode(201)
                .extract()
                .path("id");
        String uploadedId = uploaded(ALICE, "alice-bin");
        jobId = createJob(
                as(ALICE),
                jobBody(
                        "alice-job",
                        uploadedId,
                        Map.of("type", "interval", "every", "PT1H", "start", later(1, ChronoUnit.DAYS)),
                        "env",
                        Map.of("DB_HOST", "alice.internal")));

        String at = later(1, ChronoUnit.HOURS);
        deadJobId = createJob(as(ALICE), jobBody("alice-dead", uploadedId, Map.of("type", "once", "at", at)));
        deadRunId = firstRunId(as(ALICE), deadJobId);
        String logKey = ArtifactStore.logKey(deadJobId, deadRunId, 1);
        Path log = Files.createTempFile("iso", ".log");
        Files.writeString(log, "alice's secret output\n");
        punctual.store.putLog(logKey, log);
        Instant now = Instant.parse(at); // the claim refuses a run before it is due
        claimAndDie(punctual, deadJobId, deadRunId, now, "ex-iso", now.plusSeconds(1), c -> c.withLogKey(logKey));
        ready = true;
    }

    /** Every route that names one of Alice's objects, as a request Bob (or anyone) can send. */
    private Map<String, Function<RequestSpecification, Response>> objectRoutes() {
        String job = "/v1/jobs/" + jobId;
        Map<String, Object> definition =
                Map.of("name", "stolen", "binaryId", binaryId, "schedule", Map.of("type", "now"));
        return Map.ofEntries(
                Map.entry("GET binary", r -> r.get("/v1/binaries/" + binaryId)),
                Map.entry("GET job", r -> r.get(job)),
                Map.entry(
                        "PUT job",
                        r -> r.contentType(ContentType.JSON)
                                .header("If-Match", "\"1\"")
                                .body(definition)
                                .put(job)),
                Map.entry("DELETE job", r -> r.delete(job)),
                Map.entry("trigger", r -> r.post(job + "/trigger")),
                Map.entry("pause", r -> r.post(job + "/pause")),
                Map.entry("resume", r -> r.post(job + "/resume")),
                Map.entry(
                        "backfill",
                        r -> r.contentType(ContentType.JSON)
                                .body(Map.of(
                                        "from",
                                        Instant.now().minus(3, ChronoUnit.HOURS).toString(),
                                        "to",
                                        Instant.now().toString()))
                                .post(job + "/backfill")),
                Map.entry("next", r -> r.get(job + "/next")),
                Map.entry("runs", r -> r.get(job + "/runs")),
                Map.entry("run", r -> r.get("/v1/jobs/" + deadJobId + "/runs/" + deadRunId)),
                Map.entry("log", r -> r.get("/v1/jobs/" + deadJobId + "/runs/" + deadRunId + "/log")),
                Map.entry("retry", r -> r.post("/v1/jobs/" + deadJobId + "/runs/" + deadRunId + "/retry")));
    }

    @Test
    void anotherTenantGetsNotFoundOnEveryRouteAndChangesNothing() {
        objectRoutes().forEach((name, route) -> {
            Response r = route.apply(as(BOB));
            assertThat(r.statusCode()).as(name).isEqualTo(404);
            assertThat(r.contentType()).as(name).startsWith("application/problem+json");
            assertThat(r.asString()).as(name).doesNotContain("alice");
        });
        as(ALICE)
                .get("/v1/jobs/" + jobId)
                .then()
                .statusCode(200)
                .body("state", equalTo("ACTIVE"))
                .body("version", equalTo(1))
                .body("env.DB_HOST", equalTo("alice.internal"));
        as(ALICE)
                .get("/v1/jobs/" + jobId + "/runs?future=true")
                .then()
                .body("items.size()", equalTo(1))
                .body("items[0].state", equalTo("SCHEDULED"));
        as(ALICE)
                .get("/v1/jobs/" + deadJobId + "/runs/" + deadRunId + "/log")
                .then()
                .statusCode(200)
                .body(containsString("alice's secret output"));
        assertThat(punctual.runs.get(deadJobId, deadRunId).orElseThrow().state())
                .isEqualTo(RunState.DEAD);
    }

    @Test
    void listingsShowOnlyTheCallersOwn() {
        assertThat(listed(as(BOB), "/v1/jobs", "id")).doesNotContain(jobId, deadJobId);
        assertThat(listed(as(ALICE), "/v1/jobs", "id")).contains(jobId, deadJobId);

        assertThat(deadRunsListed(as(BOB), "runId")).doesNotContain(deadRunId);
        assertThat(deadRunsListed(as(ALICE), "runId")).contains(deadRunId);

        // The search across jobs (every run, those not due yet too): the caller's jobs' runs only.
        assertThat(listed(as(BOB).queryParam("future", "true"), "/v1/runs", "jobId"))
                .doesNotContain(jobId, deadJobId);
        assertThat(listed(as(ALICE).queryParam("future", "true"), "/v1/runs", "jobId"))
                .contains(jobId, deadJobId);
    }

    @Test
    void aJobCannotUseAnotherTenantsBinary() {
        as(BOB).contentType(ContentType.JSON)
                .body(Map.of("name", "thief", "binaryId", binaryId, "schedule", Map.of("type", "now")))
                .post("/v1/jobs")
                .then()
                .statusCode(422)
                .contentType("application/problem+json")
                .body("field", equalTo("binaryId"));
    }

    @Test
    void anotherTenantsCursorIsRefused() {
        String cursor = as(ALICE)
                .queryParam("limit", 1)
                .get("/v1/jobs")
                .then()
                .statusCode(200)
                .extract()
                .path("nextCursor");
        assertThat(cursor).isNotNull();
        as(BOB).queryParam("cursor", cursor)
                .get("/v1/jobs")
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("field", equalTo("cursor"));
    }

    @Test
    void aRequestWithoutAnIdentityIsUnauthenticatedOnEveryRoute() {
        Map<String, Function<RequestSpecification, Response>> routes = new java.util.HashMap<>(objectRoutes());
        routes.put("list jobs", r -> r.get("/v1/jobs"));
        routes.put("dead letters", r -> r.queryParam("state", "DEAD").get("/v1/runs"));
        routes.put("runs across jobs", r -> r.get("/v1/runs"));
        routes.put(
                "create job",
                r -> r.contentType(ContentType.JSON).body(Map.of("name", "x")).post("/v1/jobs"));
        routes.put(
                "register binary",
                r -> r.contentType(ContentType.JSON)
                        .body(Map.of("name", "x", "sha256", "0".repeat(64), "size", 1))
                        .post("/v1/binaries"));
        routes.forEach((name, route) -> {
            Response r = route.apply(as(Gateway.ANONYMOUS));
            assertThat(r.statusCode()).as(name).isEqualTo(401);
            assertThat(r.contentType()).as(name).startsWith("application/problem+json");
            assertThat(r.header("WWW-Authenticate")).as(name).isEqualTo("Bearer");
        });
        as(ALICE).get("/v1/jobs/" + jobId).then().statusCode(200).body("state", equalTo("ACTIVE"));
    }

    @Test
    void inJwtModeAnIamSignedCallerIsNoOne() {
        as("iam:arn:aws:sts::111122223333:assumed-role/deployer/s-1")
                .get("/v1/jobs")
                .then()
                .statusCode(401)
                .contentType("application/problem+json");
    }
}
