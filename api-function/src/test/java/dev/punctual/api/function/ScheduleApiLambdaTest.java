package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.jobBody;
import static dev.punctual.api.function.Problems.postJson;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Schedule previews and the cron and dates kinds through the real Lambda path, on the embedded emulators. */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class ScheduleApiLambdaTest {
    private static final Map<String, Object> NEW_YORK_0230 =
            Map.of("type", "cron", "expression", "30 2 * * *", "timezone", "America/New_York");

    @Test
    void previewOfADailyNewYorkCronAcrossTheMarchTransitionFlagsTheShiftedRun() {
        JsonPath p = given().contentType(ContentType.JSON)
                .body(Map.of("schedule", NEW_YORK_0230, "count", 5, "from", "2030-03-08T00:00:00Z"))
                .post("/v1/schedules/preview")
                .then()
                .statusCode(200)
                .contentType(ContentType.JSON)
                .body("timezone", equalTo("America/New_York"))
                .extract()
                .jsonPath();
        List<String> at = p.getList("occurrences.at", String.class);
        assertThat(at).hasSize(5);
        assertThat(at.stream().map(Instant::parse).toList()).isSorted().doesNotHaveDuplicates();
        assertThat(at)
                .containsExactly(
                        "2030-03-08T07:30:00Z",
                        "2030-03-09T07:30:00Z",
                        "2030-03-10T07:00:00Z",
                        "2030-03-11T06:30:00Z",
                        "2030-03-12T06:30:00Z");
        assertThat(p.getList("occurrences.dst")).containsExactly(null, null, "gap-shifted", null, null);
        assertThat(p.getString("occurrences[2].local")).isEqualTo("2030-03-10T03:00:00-04:00[America/New_York]");
        assertThat(p.getMap("occurrences[0]")).containsKey("dst");
    }

    @Test
    void previewOfDatesAcceptsStringsAndObjectsAndDefaultsToTen() {
        Map<String, Object> dates = Map.of(
                "type",
                "dates",
                "dstOverlap",
                "twice",
                "dates",
                // Far ahead: previewed from now, a date that has passed would drop out of the answer.
                List.of("2100-01-01T00:00:00Z", Map.of("local", "2099-10-25T02:30:00", "zone", "Europe/Berlin")));
        given().contentType(ContentType.JSON)
                .body(Map.of("schedule", dates))
                .post("/v1/schedules/preview")
                .then()
                .statusCode(200)
                .body(
                        "occurrences.at",
                        equalTo(List.of("2099-10-25T00:30:00Z", "2099-10-25T01:30:00Z", "2100-01-01T00:00:00Z")))
                .body("occurrences.dst", equalTo(java.util.Arrays.asList("overlap-first", "overlap-second", null)));
        Map<String, Object> everyFiveMinutes = Map.of("type", "cron", "expression", "*/5 * * * *");
        given().contentType(ContentType.JSON)
                .body(Map.of("schedule", everyFiveMinutes))
                .post("/v1/schedules/preview")
                .then()
                .statusCode(200)
                .body("occurrences.size()", equalTo(10))
                .body("timezone", equalTo("UTC"));
    }

    @Test
    void anInvalidScheduleIs422NamingTheField() {
        preview(Map.of("schedule", Map.of("type", "cron", "expression", "61 * * * *")), 422, "schedule.expression");
        preview(Map.of("schedule", daily0900("timezone", "Mars/Base")), 422, "schedule.timezone");
        preview(Map.of("schedule", daily0900("dstGap", "later")), 422, "schedule.dstGap");
        preview(Map.of("schedule", NEW_YORK_0230, "count", 101), 422, "count");
        preview(
                Map.of(
                        "schedule",
                        Map.of("type", "dates", "dates", List.of("2030-01-01T00:00:00Z", "2030-01-01T01:00:00+01:00"))),
                422,
                "schedule.dates[1]");
        preview(Map.of("schedule", daily0900("tmezone", "UTC")), 400, "schedule.tmezone");
        preview(Map.of("schedule", NEW_YORK_0230, "cont", 3), 400, "cont");
    }

    @Test
    void createsACronJobAndListsItsNextOccurrences() throws Exception {
        String binaryId = uploaded("cron.sh");
        Map<String, Object> schedule = Map.of(
                "type", "cron", "expression", "0 */6 * * *", "timezone", "Australia/Lord_Howe", "dstOverlap", "twice");
        String id = given().contentType(ContentType.JSON)
                .body(Map.of("name", "six-hourly", "binaryId", binaryId, "schedule", schedule))
                .post("/v1/jobs")
                .then()
                .statusCode(201)
                .body("schedule.expression", equalTo("0 */6 * * *"))
                .body("schedule.dstGap", equalTo("shift"))
                .body("schedule.dstOverlap", equalTo("twice"))
                .extract()
                .path("id");
        given().get("/v1/jobs/" + id).then().statusCode(200).body("schedule.timezone", equalTo("Australia/Lord_Howe"));

        JsonPath next = given().queryParam("count", 4)
                .get("/v1/jobs/" + id + "/next")
                .then()
                .statusCode(200)
                .body("timezone", equalTo("Australia/Lord_Howe"))
                .extract()
                .jsonPath();
        List<Instant> at = next.getList("occurrences.at", String.class).stream()
                .map(Instant::parse)
                .toList();
        assertThat(at).hasSize(4).isSorted().doesNotHaveDuplicates();
        assertThat(at.getFirst()).isAfter(Instant.now().minusSeconds(1));
        given().get("/v1/jobs/" + id + "/next").then().statusCode(200).body("occurrences.size()", equalTo(10));

        given().get("/v1/jobs/job_nosuchjobnosuchjob00/next")
                .then()
                .statusCode(404)
                .contentType("application/problem+json");
        given().queryParam("count", "many")
                .get("/v1/jobs/" + id + "/next")
                .then()
                .statusCode(400)
                .body("field", equalTo("count"));
        given().queryParam("count", 0)
                .get("/v1/jobs/" + id + "/next")
                .then()
                .statusCode(400)
                .body("field", equalTo("count"));
        given().delete("/v1/jobs/" + id).then().statusCode(204);
    }

    @Test
    void unknownFieldsInsideASchedulesAre400AndBadKindsAre422WhenCreatingAJob() throws Exception {
        String binaryId = uploaded("bad-cron.sh");
        job(
                jobBody(
                        "x",
                        binaryId,
                        Map.of("type", "cron", "expression", "0 9 * * *", "timezone", "UTC", "jitter", "PT5M")),
                400,
                "schedule.jitter");
        job(
                jobBody(
                        "x",
                        binaryId,
                        Map.of(
                                "type",
                                "dates",
                                "dates",
                                List.of(Map.of("local", "2030-01-01T09:00:00", "zon", "UTC")))),
                400,
                "schedule.dates[0].zon");
        job(jobBody("x", binaryId, Map.of("type", "cron", "expression", "0 9 * *")), 422, "schedule.expression");
        postJson(
                        "/v1/jobs",
                        jobBody(
                                "x",
                                binaryId,
                                Map.of("type", "cron", "expression", "0 9 * * 8", "timezone", "Nope/Nope")))
                .then()
                .statusCode(422)
                .body("errors.field", hasItem("schedule.timezone"))
                .body("errors.field", hasItem("schedule.expression"));
    }

    /** A cron schedule at 09:00 every day, with one more {@code key} and {@code value}. */
    private static Map<String, Object> daily0900(String key, Object value) {
        return Map.of("type", "cron", "expression", "0 9 * * *", key, value);
    }

    private static void preview(Map<String, Object> body, int status, String field) {
        problemNaming(postJson("/v1/schedules/preview", body), status, field);
    }

    private static void job(Map<String, Object> body, int status, String field) {
        problemNaming(postJson("/v1/jobs", body), status, field);
    }

    private static void problemNaming(Response r, int status, String field) {
        r.then().statusCode(status).contentType("application/problem+json").body("field", equalTo(field));
    }
}
