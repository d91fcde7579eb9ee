package dev.punctual.api.function;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** Liveness and readiness through the Lambda path: ready once the jobs table answers. */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class HealthLambdaTest {
    @Test
    void isLiveAndReadyWhenTheJobsTableAnswers() {
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
        given().get("/q/health/ready")
                .then()
                .statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItem("jobs table"));
    }

    @Test
    void isNotReadyWhileTheJobsTableFailsButStaysLive() {
        FaultInjection.failReads = true;
        try {
            given().get("/q/health/ready")
                    .then()
                    .statusCode(503)
                    .body("status", equalTo("DOWN"))
                    .body("checks.find { it.name == 'jobs table' }.data.error", equalTo("DynamoDbException"));
            given().get("/q/health/live").then().statusCode(200);
        } finally {
            FaultInjection.failReads = false;
        }
        given().get("/q/health/ready").then().statusCode(200);
    }
}
