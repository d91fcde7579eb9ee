package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.put;
import static dev.punctual.api.function.ApiBinaries.register;
import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.NOW;
import static dev.punctual.api.function.Problems.assertField;
import static dev.punctual.api.function.Problems.assertProblem;
import static dev.punctual.api.function.Problems.countJobs;
import static dev.punctual.api.function.Problems.jobBody;
import static dev.punctual.api.function.Problems.later;
import static dev.punctual.api.function.Problems.postJson;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.nullValue;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The HTTP API through the real Lambda path: RestAssured requests become API Gateway (HTTP API v2) events on
 * Quarkus's mock event server, and the function runs against the embedded emulators.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class ApiLambdaTest {
    @Test
    void uploadsThroughThePresignedUrlAndS3RejectsAWrongBody() throws Exception {
        byte[] body = "#!/bin/sh\necho hello\n".getBytes(StandardCharsets.UTF_8);
        JsonPath b = register("hello.sh", body);
        assertThat(b.getString("uploadUrl")).startsWith("http://127.0.0.1:");
        assertThat(b.getMap("uploadHeaders")).containsKey("x-amz-checksum-sha256");
        given().get("/v1/binaries/" + b.getString("id")).then().statusCode(200).body("uploaded", equalTo(false));

        int wrong = put(b, "#!/bin/sh\necho tampered\n".getBytes(StandardCharsets.UTF_8));
        assertThat(wrong).isBetween(400, 499);
        given().get("/v1/binaries/" + b.getString("id")).then().body("uploaded", equalTo(false));

        assertThat(put(b, body)).isEqualTo(200);
        given().get("/v1/binaries/" + b.getString("id")).then().body("uploaded", equalTo(true));
    }

    @Test
    void listsTheCallersBinariesNewestFirstAndFindsOneByItsContent() throws Exception {
        byte[] body = ("#!/bin/sh\necho listed " + System.nanoTime() + "\n").getBytes(StandardCharsets.UTF_8);
        JsonPath b = register("listed.sh", body);
        assertThat(put(b, body)).isEqualTo(200);
        String sha = b.getString("sha256");

        given().queryParam("sha256", sha)
                .get("/v1/binaries")
                .then()
                .statusCode(200)
                .body("items.id", contains(b.getString("id")))
                .body("items[0].uploaded", equalTo(true))
                .body("items[0].uploadUrl", nullValue());
        given().header(Gateway.USER, "bob")
                .queryParam("sha256", sha)
                .get("/v1/binaries")
                .then()
                .statusCode(200)
                .body("items", empty());
        given().queryParam("sha256", "not-hex")
                .get("/v1/binaries")
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("field", equalTo("sha256"));
    }

    @Test
    void createsGetsListsAndDeletesAJob() throws Exception {
        String binaryId = uploaded("job.sh");
        String at = later(1, ChronoUnit.HOURS);
        Response created = given().contentType(ContentType.JSON)
                .body(Map.of(
                        "name",
                        "nightly",
                        "binaryId",
                        binaryId,
                        "args",
                        List.of("a", "b c"),
                        "env",
                        Map.of("GREETING", "hi"),
                        "schedule",
                        Map.of("type", "once", "at", at),
                        "timeoutSeconds",
                        30,
                        "maxAttempts",
                        2))
                .post("/v1/jobs");
        created.then()
                .statusCode(201)
                .body("nextRunAt", equalTo(at))
                .body("state", equalTo("ACTIVE"))
                .body("owner", equalTo(Gateway.owner(Gateway.DEFAULT_USER)))
                .body("version", equalTo(1));
        String id = created.path("id");
        assertThat(created.header("Location")).endsWith("/v1/jobs/" + id);

        given().get("/v1/jobs/" + id)
                .then()
                .statusCode(200)
                .body("args[1]", equalTo("b c"))
                .body("env.GREETING", equalTo("hi"))
                .body("schedule.type", equalTo("once"))
                .body("schedule.at", equalTo(at));
        given().get("/v1/jobs/" + id + "/runs?future=true")
                .then()
                .statusCode(200)
                .body("items[0].state", equalTo("SCHEDULED"))
                .body("items[0].scheduledAt", equalTo(at))
                .body("items[0].attempt", equalTo(0))
                .body("items[0].exitCode", nullValue());
        // By its name: the caller's first page (oldest first) holds it only while other tests have made few jobs.
        given().queryParam("namePrefix", "nightly")
                .get("/v1/jobs")
                .then()
                .statusCode(200)
                .body("items.id", hasItem(id));

        given().delete("/v1/jobs/" + id).then().statusCode(204);
        given().get("/v1/jobs/" + id)
                .then()
                .statusCode(200)
                .body("state", equalTo("DELETED"))
                .body("nextRunAt", nullValue());
        given().get("/v1/jobs/" + id + "/runs?future=true").then().body("items[0].state", equalTo("CANCELLED"));
        given().delete("/v1/jobs/" + id).then().statusCode(204);
    }

    @Test
    void listsJobsPageByPageWithACursor() throws Exception {
        String binaryId = uploaded("page.sh");
        Set<String> created = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            created.add(given().contentType(ContentType.JSON)
                    .body(intervalJob("page-" + i, binaryId))
                    .post("/v1/jobs")
                    .then()
                    .statusCode(201)
                    .extract()
                    .path("id"));
        }
        Set<String> seen = new HashSet<>();
        int pages = Listings.pageByPage(
                RestAssured::given, "/v1/jobs", page -> seen.addAll(page.getList("items.id", String.class)));
        assertThat(seen).containsAll(created);
        assertThat(pages).isGreaterThanOrEqualTo(3);
    }

    @Test
    void rejectsBadInputWithProblemJsonNamingTheFieldAndWritesNothing() throws Exception {
        String binaryId = uploaded("bad.sh");
        int before = countJobs();
        refused(jobBody("x", binaryId, NOW, "maxAttempts", 3, "colour", "blue"), 400, "colour");
        refused(jobBody("x", binaryId, Map.of("type", "now", "evry", "PT5S")), 400, "schedule.evry");
        refused(jobBody("x", binaryId, NOW, "timeoutSeconds", "soon"), 400, "timeoutSeconds");
        refused(jobBody("x", binaryId, NOW, "env", Map.of("LD_PRELOAD", "/tmp/x.so")), 422, "env.LD_PRELOAD");
        refused(
                jobBody("x", binaryId, NOW, "env", Map.of("AWS_SECRET_ACCESS_KEY", "x")),
                422,
                "env.AWS_SECRET_ACCESS_KEY");
        refused(jobBody("x", binaryId, NOW, "env", Map.of("SCHEDULER_RUN_ID", "x")), 422, "env.SCHEDULER_RUN_ID");
        refused(jobBody("x", binaryId, Map.of("type", "interval", "every", "PT1S")), 422, "schedule.every");
        refused(jobBody("x", binaryId, Map.of("type", "weekly")), 422, "schedule.type");
        refused(jobBody("x", binaryId, NOW, "maxAttempts", 0), 422, "maxAttempts");
        refused(jobBody("x", binaryId, NOW, "timeoutSeconds", 999999), 422, "timeoutSeconds");
        refused(jobBody("x", "bin_doesnotexist", NOW), 422, "binaryId");
        refused(jobBody("x", binaryId, NOW, "nonRetryableExitCodes", List.of(64, 0)), 422, "nonRetryableExitCodes[1]");
        refused(jobBody("x", binaryId, NOW, "nonRetryableExitCodes", List.of(64, 64)), 422, "nonRetryableExitCodes[1]");
        refused(
                jobBody("x", binaryId, NOW, "nonRetryableExitCodes", List.of("sixty-four")),
                400,
                "nonRetryableExitCodes[0]");
        JsonPath notUploaded = register("later.sh", "#!/bin/sh\n".getBytes(StandardCharsets.UTF_8));
        refused(jobBody("x", notUploaded.getString("id"), NOW), 422, "binaryId");
        assertField(given().contentType(ContentType.JSON).body("{\"name\": ").post("/v1/jobs"), 400, "body");
        assertField(given().queryParam("limit", "many").get("/v1/jobs"), 400, "limit");
        assertField(given().queryParam("cursor", "garbage").get("/v1/jobs"), 400, "cursor");
        assertThat(countJobs()).isEqualTo(before);
    }

    @Test
    void aBatchCreatesEveryJobInOrderOrNoneNamingEachBadFieldByIndex() throws Exception {
        String binaryId = uploaded("batch.sh");
        int before = countJobs();
        Map<String, Object> hourly = Problems.hourlyJob("b1", binaryId);
        postJson("/v1/jobs/batch", Map.of("jobs", List.of(jobBody("b0", binaryId, NOW), hourly)))
                .then()
                .statusCode(201)
                .contentType(ContentType.JSON)
                .body("jobs.name", org.hamcrest.Matchers.contains("b0", "b1"))
                .body("jobs[1].state", equalTo("ACTIVE"));
        assertThat(countJobs()).isEqualTo(before + 2);

        Map<String, Object> bad = jobBody("b3", "bin_nosuchbinarynosuch0", NOW, "maxAttempts", 0);
        assertProblem(postJson("/v1/jobs/batch", Map.of("jobs", List.of(hourly, bad))), 422)
                .body(
                        "errors.field",
                        org.hamcrest.Matchers.containsInAnyOrder("jobs[1].binaryId", "jobs[1].maxAttempts"));
        assertField(postJson("/v1/jobs/batch", "{\"jobs\": [], \"extra\": 1}"), 400, "extra");
        assertField(postJson("/v1/jobs/batch", Map.of("jobs", List.of())), 422, "jobs");
        assertThat(countJobs()).isEqualTo(before + 2);
    }

    @Test
    void throttledStorageAnswers503WithRetryAfterAndWritesNothing() throws Exception {
        String binaryId = uploaded("throttled.sh");
        int before = countJobs();
        FaultInjection.throttleWrites = true;
        try {
            postJson("/v1/jobs", jobBody("x", binaryId, NOW))
                    .then()
                    .statusCode(503)
                    .header("Retry-After", "2")
                    .contentType("application/problem+json")
                    .body("status", equalTo(503));
        } finally {
            FaultInjection.throttleWrites = false;
        }
        assertThat(countJobs()).isEqualTo(before);
    }

    @Test
    void unknownResourcesAre404ProblemJson() {
        given().get("/v1/jobs/job_nosuchjobnosuchjob00")
                .then()
                .statusCode(404)
                .contentType("application/problem+json")
                .body("status", equalTo(404));
        given().get("/v1/binaries/bin_nope").then().statusCode(404).contentType("application/problem+json");
        given().contentType(ContentType.JSON)
                .body(Map.of("name", "x", "sha256", "abc", "size", 0))
                .post("/v1/binaries")
                .then()
                .statusCode(422)
                .body("errors.field", hasItem("sha256"))
                .body("errors.field", hasItem("size"));
    }

    /** A job {@code body} refused with {@code status}, naming {@code field}. */
    private static void refused(Map<String, Object> body, int status, String field) {
        assertProblem(postJson("/v1/jobs", body), status).body("field", equalTo(field));
    }

    private static Map<String, Object> intervalJob(String name, String binaryId) {
        String start = later(1, ChronoUnit.DAYS);
        return Map.of(
                "name",
                name,
                "binaryId",
                binaryId,
                "schedule",
                Map.of("type", "interval", "every", "PT1H", "start", start));
    }
}
