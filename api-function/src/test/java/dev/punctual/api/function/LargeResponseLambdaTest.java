package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.createJob;
import static dev.punctual.api.function.Problems.hourlyJob;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

/**
 * A response over the REST layer's default 8 KB output buffer completes on the Lambda path (it used to hang until
 * the client gave up: see quarkus.rest.output-buffer-size in application.properties).
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class LargeResponseLambdaTest {
    @Test
    void aPageOfJobsOverEightKilobytesIsAnsweredWhole() throws Exception {
        String binaryId = uploaded("large.sh");
        for (int i = 0; i < 25; i++) {
            createJob(hourlyJob("large-" + i, binaryId));
        }
        Response page = given().queryParam("limit", 25).get("/v1/jobs");
        page.then().statusCode(200);
        assertThat(page.asByteArray().length).isGreaterThan(8192);
        assertThat(page.jsonPath().getList("items")).hasSize(25);
    }
}
