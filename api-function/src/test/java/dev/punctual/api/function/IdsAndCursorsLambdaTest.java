package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.assertProblem;
import static dev.punctual.api.function.Problems.createJob;
import static dev.punctual.api.function.Problems.hourlyJob;
import static dev.punctual.api.function.Problems.postJson;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.amazon.lambda.http.LambdaHttpHandler;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ids that cannot name anything (longer than a DynamoDB key may be, or of the wrong shape) and cursors that name
 * another owner's or another job's items: a 404 or a 400 problem, never a 500 from DynamoDB.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class IdsAndCursorsLambdaTest {
    /** Longer than DynamoDB's partition key limit (2048 bytes). */
    private static final String LONG = "x".repeat(2100);

    private static String job;

    private static String job() throws Exception {
        if (job == null) {
            job = createJob(hourlyJob("ids", uploaded("ids.sh")));
        }
        return job;
    }

    static Stream<Arguments> routesWithAnId() {
        String past = Instant.now()
                .minus(1, ChronoUnit.HOURS)
                .truncatedTo(ChronoUnit.SECONDS)
                .toString();
        String backfill = "{\"from\":\"" + past + "\",\"to\":\"" + past + "\"}";
        return Stream.of(
                Arguments.of("GET", "/v1/jobs/{long}", null),
                Arguments.of("PUT", "/v1/jobs/{long}", "{}"),
                Arguments.of("DELETE", "/v1/jobs/{long}", null),
                Arguments.of("POST", "/v1/jobs/{long}/trigger", null),
                Arguments.of("POST", "/v1/jobs/{long}/pause", null),
                Arguments.of("POST", "/v1/jobs/{long}/resume", null),
                Arguments.of("POST", "/v1/jobs/{long}/backfill", backfill),
                Arguments.of("GET", "/v1/jobs/{long}/next", null),
                Arguments.of("GET", "/v1/jobs/{long}/runs", null),
                Arguments.of("GET", "/v1/jobs/{long}/runs/20300101T000000.000Z/log", null),
                Arguments.of("POST", "/v1/jobs/{long}/runs/20300101T000000.000Z/retry", null),
                Arguments.of("GET", "/v1/jobs/{job}/runs/{long}/log", null),
                Arguments.of("POST", "/v1/jobs/{job}/runs/{long}/retry", null),
                Arguments.of("GET", "/v1/binaries/{long}", null));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("routesWithAnId")
    void anIdLongerThanAKeyIsNotFound(String method, String template, String body) throws Exception {
        String path = template.replace("{long}", LONG);
        if (path.contains("{job}")) {
            path = path.replace("{job}", job());
        }
        RequestSpecification req = given().header("If-Match", "\"1\"");
        if (body != null) {
            req = req.contentType(ContentType.JSON).body(body);
        }
        assertProblem(req.request(method, path), 404);
    }

    @Test
    void anIdOfTheWrongShapeIsNotFound() throws Exception {
        assertProblem(given().get("/v1/jobs/job_" + "a".repeat(21)), 404);
        assertProblem(given().get("/v1/jobs/" + job() + "/runs/not-a-run-id/log"), 404);
        assertProblem(given().post("/v1/jobs/" + job() + "/runs/20300101T000000.000Z-tzzzzzz/retry"), 404);
    }

    @Test
    void aJobsCursorNamingAnotherOwnerIsRejected() throws Exception {
        String id = job();
        String cursor = cursor("{\"jobId\":\"" + id
                + "\",\"owner\":\"someone-else\",\"ownerSort\":\"2020-01-01T00:00:00.000Z#" + id + "\"}");
        assertProblem(given().queryParam("cursor", cursor).get("/v1/jobs"), 400, "cursor");
    }

    @Test
    void aJobsCursorWithAKeyLongerThanDynamoDbAllowsIsRejected() throws Exception {
        String cursor = cursor("{\"jobId\":\"" + job() + "\",\"owner\":\"local\",\"ownerSort\":\"" + LONG + "\"}");
        assertProblem(given().queryParam("cursor", cursor).get("/v1/jobs"), 400, "cursor");
    }

    @Test
    void aRunsCursorNamingAnotherJobIsRejected() throws Exception {
        String other = createJob(hourlyJob("ids-other", uploaded("ids-other.sh")));
        String cursor = cursor("{\"jobId\":\"" + other + "\",\"runId\":\"20300101T000000.000Z\"}");
        assertProblem(given().queryParam("cursor", cursor).get("/v1/jobs/" + job() + "/runs"), 400, "cursor");
    }

    @Test
    void aRunsCursorWithAnImpossibleRunIdIsRejected() throws Exception {
        String cursor = cursor("{\"jobId\":\"" + job() + "\",\"runId\":\"" + LONG + "\"}");
        assertProblem(given().queryParam("cursor", cursor).get("/v1/jobs/" + job() + "/runs"), 400, "cursor");
    }

    @Test
    void aDeadLetterCursorNamingAnotherOwnerIsRejected() throws Exception {
        String cursor = cursor("{\"jobId\":\"" + job() + "\",\"runId\":\"20300101T000000.000Z\","
                + "\"ownerState\":\"someone-else#DEAD\",\"finishedSort\":\"2030-01-01T00:00:00.000Z#" + job()
                + "#20300101T000000.000Z\"}");
        assertProblem(
                given().queryParam("state", "DEAD").queryParam("cursor", cursor).get("/v1/runs"), 400, "cursor");
    }

    @Test
    void aCursorThatIsNotPercentEncodedIsABadRequest() throws Exception {
        assertRawProblem("/v1/jobs", "cursor=%%%%", "cursor");
        assertRawProblem("/v1/runs", "state=DEAD&cursor=%zz", "cursor");
        assertRawProblem("/v1/jobs/" + job() + "/runs", "limit=5&cursor=abc%", "cursor");
    }

    @Test
    void aUriOverTheLimitIsTooLong() throws Exception {
        APIGatewayV2HTTPResponse r = invoke("/v1/jobs/" + "x".repeat(9000), null);
        assertThat(r.getStatusCode()).isEqualTo(414);
        assertThat(body(r)).contains("\"status\":414").contains("urn:punctual:problem:uri-too-long");
    }

    @Test
    void aJobNamingABinaryIdLongerThanAKeyIsUnprocessable() throws Exception {
        Map<String, Object> body = hourlyJob("ids-binary", LONG);
        assertProblem(postJson("/v1/jobs", body), 422, "binaryId");
    }

    /**
     * Handed to the Lambda handler as API Gateway would hand it over, raw query string and all: HTTP clients refuse
     * to send such a URI. Quarkus's own URI check is off in these tests ({@code vertx.disableURIValidation}, see the
     * pom), as it must be where the function is deployed, so the api's HttpEdge answers.
     */
    private static void assertRawProblem(String path, String rawQuery, String field) throws Exception {
        APIGatewayV2HTTPResponse r = invoke(path, rawQuery);
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(400);
        assertThat(r.getHeaders().entrySet()).anySatisfy(h -> {
            assertThat(h.getKey()).isEqualToIgnoringCase("Content-Type");
            assertThat(h.getValue()).startsWith("application/problem+json");
        });
        assertThat(body(r)).contains("\"field\":\"" + field + "\"").contains("\"status\":400");
    }

    /** A GET handed to the Lambda handler as an API Gateway (HTTP API v2) event, bypassing any HTTP client. */
    private static APIGatewayV2HTTPResponse invoke(String rawPath, String rawQuery) {
        APIGatewayV2HTTPEvent event = new APIGatewayV2HTTPEvent();
        event.setRequestContext(new APIGatewayV2HTTPEvent.RequestContext());
        event.getRequestContext().setHttp(new APIGatewayV2HTTPEvent.RequestContext.Http());
        event.getRequestContext().getHttp().setMethod("GET");
        event.getRequestContext().getHttp().setSourceIp("127.0.0.1");
        event.setRawPath(rawPath);
        event.setRawQueryString(rawQuery);
        event.setHeaders(Map.of("accept", "application/json"));
        APIGatewayV2HTTPResponse r = new LambdaHttpHandler().handleRequest(event, null);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        if (r.getHeaders() != null) {
            r.getHeaders()
                    .forEach((k, v) ->
                            headers.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
        }
        if (r.getMultiValueHeaders() != null) {
            r.getMultiValueHeaders()
                    .forEach((k, v) ->
                            headers.computeIfAbsent(k, x -> new ArrayList<>()).addAll(v));
        }
        Gateway.conform("GET", rawPath, new Conformance.Answer(r.getStatusCode(), headers, body(r)));
        return r;
    }

    private static String body(APIGatewayV2HTTPResponse r) {
        return r.getIsBase64Encoded()
                ? new String(Base64.getDecoder().decode(r.getBody()), StandardCharsets.UTF_8)
                : r.getBody();
    }

    private static String cursor(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }
}
