package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.assertProblem;
import static dev.punctual.api.function.Problems.hourlyJob;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A job's expectation (the dead-man's switch) through the real Lambda path: shown as written (a deadline schedule
 * with its defaults filled in), and refused with a problem naming the field when it is not one.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class ExpectLambdaTest {

    @Test
    void aJobsExpectationIsShownAsWritten() throws Exception {
        Map<String, Object> every = hourlyJob("watched-every", uploaded("watched-every.sh"));
        every.put("expect", Map.of("every", "PT25H"));
        String id = given().contentType(ContentType.JSON)
                .body(every)
                .post("/v1/jobs")
                .then()
                .statusCode(201)
                .body("expect.every", equalTo("PT25H"))
                .body("expect.by", nullValue())
                .extract()
                .path("id");
        given().get("/v1/jobs/" + id).then().statusCode(200).body("expect.every", equalTo("PT25H"));

        Map<String, Object> by = hourlyJob("watched-by", uploaded("watched-by.sh"));
        by.put("expect", Map.of("by", Map.of("type", "cron", "expression", "0 6 * * *", "timezone", "Europe/Paris")));
        given().contentType(ContentType.JSON)
                .body(by)
                .post("/v1/jobs")
                .then()
                .statusCode(201)
                .body("expect.by.type", equalTo("cron"))
                .body("expect.by.expression", equalTo("0 6 * * *"))
                .body("expect.by.timezone", equalTo("Europe/Paris"));
    }

    @Test
    void aBadExpectationIsRefusedNamingTheField() throws Exception {
        String binaryId = uploaded("badly-watched.sh");
        Map<String, Object> tooOften = hourlyJob("too-often", binaryId);
        tooOften.put("expect", Map.of("every", "PT10S"));
        assertProblem(given().contentType(ContentType.JSON).body(tooOften).post("/v1/jobs"), 422, "expect.every");

        Map<String, Object> both = hourlyJob("both", binaryId);
        both.put("expect", Map.of("every", "PT1H", "by", Map.of("type", "once", "at", "2099-01-01T00:00:00Z")));
        assertProblem(given().contentType(ContentType.JSON).body(both).post("/v1/jobs"), 422, "expect");

        Map<String, Object> unknown = hourlyJob("unknown-field", binaryId);
        unknown.put("expect", Map.of("within", "PT1H"));
        assertProblem(given().contentType(ContentType.JSON).body(unknown).post("/v1/jobs"), 400, "expect.within");
    }
}
