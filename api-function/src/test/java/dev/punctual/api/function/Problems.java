package dev.punctual.api.function;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;

/** Assertions on RFC 9457 answers, and small job bodies, shared by the input-hardening tests. */
final class Problems {
    private Problems() {}

    /** A problem+json answer with {@code status} whose {@code field} and {@code errors} name {@code field}. */
    static ValidatableResponse assertProblem(Response r, int status, String field) {
        ValidatableResponse v = assertProblem(r, status);
        return v.body("field", equalTo(field)).body("errors.field", hasItem(field));
    }

    static ValidatableResponse assertProblem(Response r, int status) {
        return r.then()
                .statusCode(status)
                .contentType("application/problem+json")
                .body("status", equalTo(status));
    }

    /** A job every hour from tomorrow: nothing of it runs during a test. */
    static Map<String, Object> hourlyJob(String name, String binaryId) {
        Map<String, Object> b = new HashMap<>();
        b.put("name", name);
        b.put("binaryId", binaryId);
        b.put(
                "schedule",
                Map.of(
                        "type",
                        "interval",
                        "every",
                        "PT1H",
                        "start",
                        Instant.now()
                                .plus(1, ChronoUnit.DAYS)
                                .truncatedTo(ChronoUnit.SECONDS)
                                .toString()));
        return b;
    }

    static String createJob(Map<String, Object> body) {
        return given().contentType(ContentType.JSON)
                .body(body)
                .post("/v1/jobs")
                .then()
                .statusCode(201)
                .extract()
                .path("id");
    }

    /** How many jobs the caller has, every page read. */
    static int countJobs() {
        int n = 0;
        String cursor = null;
        do {
            var req = given().queryParam("limit", 100);
            if (cursor != null) {
                req = req.queryParam("cursor", cursor);
            }
            JsonPath page = req.get("/v1/jobs").then().statusCode(200).extract().jsonPath();
            n += page.getList("items").size();
            cursor = page.getString("nextCursor");
        } while (cursor != null);
        return n;
    }
}
