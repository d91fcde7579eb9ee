package dev.punctual.api.function;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** Assertions on RFC 9457 answers, and small job bodies, shared by the input-hardening tests. */
final class Problems {
    private Problems() {}

    /** A problem+json answer with {@code status} whose {@code field} and {@code errors} name {@code field}. */
    static ValidatableResponse assertProblem(Response r, int status, String field) {
        ValidatableResponse v = assertProblem(r, status);
        return v.body("field", equalTo(field)).body("errors.field", hasItem(field));
    }

    /** A problem+json answer with {@code status} whose {@code field} names {@code field}. */
    static ValidatableResponse assertField(Response r, int status, String field) {
        return assertProblem(r, status).body("field", equalTo(field));
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
        b.put("schedule", Map.of("type", "interval", "every", "PT1H", "start", later(1, ChronoUnit.DAYS)));
        return b;
    }

    /** The schedule {@code {"type": "now"}}. */
    static final Map<String, Object> NOW = Map.of("type", "now");

    /** The instant {@code amount} {@code unit}s from now, to the second, as the API writes instants. */
    static String later(long amount, ChronoUnit unit) {
        return Instant.now().plus(amount, unit).truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** A job body of {@code name}, {@code binaryId} and {@code schedule}, then {@code more} as key, value, … */
    static Map<String, Object> jobBody(String name, String binaryId, Map<String, ?> schedule, Object... more) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("name", name);
        b.put("binaryId", binaryId);
        b.put("schedule", schedule);
        for (int i = 0; i < more.length; i += 2) {
            b.put((String) more[i], more[i + 1]);
        }
        return b;
    }

    /** {@code body} as JSON, POSTed to {@code path} by the default test user. */
    static Response postJson(String path, Object body) {
        return given().contentType(ContentType.JSON).body(body).post(path);
    }

    /** The same with a body already written as JSON text (sent as it is, never re-serialised). */
    static Response postJson(String path, String body) {
        return given().contentType(ContentType.JSON).body(body).post(path);
    }

    /** {@code body} as JSON, PUT to {@code path} with {@code If-Match: ifMatch}. */
    static Response putIfMatch(String path, String ifMatch, Object body) {
        return given().contentType(ContentType.JSON)
                .header("If-Match", ifMatch)
                .body(body)
                .put(path);
    }

    static String createJob(Map<String, Object> body) {
        return createJob(given(), body);
    }

    /** Creates a job with {@code body} through {@code caller} (e.g. a request as another user); its id. */
    static String createJob(RequestSpecification caller, Map<String, Object> body) {
        return caller.contentType(ContentType.JSON)
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
