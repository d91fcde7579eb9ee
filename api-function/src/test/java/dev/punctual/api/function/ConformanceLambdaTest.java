package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.Problems.createJob;
import static dev.punctual.api.function.Problems.hourlyJob;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The conformance check ({@link Conformance}) that every answer of these tests goes through can fail: a real answer
 * of the function conforms, and the same answer altered in one way (a field null that may not be, a required header
 * missing, a header the document does not declare, another content type, a status the document does not have) is
 * named as a violation. So is an answer to a path the document does not have that is no problem, and a request body
 * the service accepted that the document does not allow.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class ConformanceLambdaTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static ApiContract contract;

    @BeforeEach
    void read() throws Exception {
        if (contract == null) {
            contract = new ApiContract(given().queryParam("format", "json")
                    .get("/v1/openapi")
                    .then()
                    .statusCode(200)
                    .extract()
                    .asString());
        }
    }

    @Test
    void aJobAnswerConformsAndEachAlterationOfItIsNamed() throws Exception {
        String id = createJob(hourlyJob("conformance", uploaded("conformance.sh")));
        String path = "/v1/jobs/" + id;
        Conformance.Answer real = answer(Gateway.invoke("GET", path, Map.of(), null, Gateway.DEFAULT_USER));
        assertThat(real.status()).isEqualTo(200);
        assertThat(violations(path, real)).isEmpty();

        ObjectNode nullName = (ObjectNode) JSON.readTree(real.body());
        nullName.putNull("name");
        assertThat(violations(path, withBody(real, nullName.toString())))
                .singleElement()
                .asString()
                .contains("body", "name", "null");
        ObjectNode noState = (ObjectNode) JSON.readTree(real.body());
        noState.remove("state");
        assertThat(violations(path, withBody(real, noState.toString())))
                .singleElement()
                .asString()
                .contains("state");

        assertThat(violations(path, withHeaders(real, h -> h.keySet().removeIf(k -> k.equalsIgnoreCase("ETag")))))
                .containsExactly("no ETag header, which the document requires");
        assertThat(violations(path, withHeaders(real, h -> replace(h, "ETag", "W/1"))))
                .singleElement()
                .asString()
                .startsWith("header ETag (W/1)");
        assertThat(violations(path, withHeaders(real, h -> h.put("X-Debug", List.of("1")))))
                .containsExactly("a X-Debug header the document does not declare for this response");
        assertThat(violations(path, withHeaders(real, h -> replace(h, "Content-Type", "text/html"))))
                .singleElement()
                .asString()
                .startsWith("content type text/html, not one of");

        Conformance.Answer teapot = new Conformance.Answer(418, real.headers(), real.body());
        Conformance.Verdict asProblem = Conformance.verdict(contract, "GET", path, null, teapot);
        assertThat(asProblem.what()).contains("getJob", "418", "4XX");
        assertThat(asProblem.violations()).isNotEmpty();
        Conformance.Answer redirect = new Conformance.Answer(302, real.headers(), real.body());
        assertThat(violations(path, redirect)).contains("the document has no response for this status");
    }

    @Test
    void anAnswerToWhatTheDocumentDoesNotHaveMustBeAProblem() throws Exception {
        String path = "/v1/nothing-here";
        Conformance.Answer real = answer(Gateway.invoke("GET", path, Map.of(), null, Gateway.DEFAULT_USER));
        assertThat(real.status()).isEqualTo(404);
        assertThat(violations(path, real)).isEmpty();
        assertThat(violations(path, new Conformance.Answer(200, real.headers(), real.body())))
                .singleElement()
                .asString()
                .startsWith("not a problem");
        assertThat(violations(path, withBody(real, "{\"title\": \"Not found\"}")))
                .isNotEmpty()
                .allMatch(v -> v.startsWith("body: "));
    }

    @Test
    void aRequestTheServiceAcceptedMustBeOneTheDocumentAllows() throws Exception {
        String binary = uploaded("conformance-request.sh");
        Map<String, Object> body = hourlyJob("conformance-request", binary);
        String json = JSON.writeValueAsString(body);
        Conformance.Answer created =
                answer(Gateway.invoke("POST", "/v1/jobs", Map.of("content-type", "application/json"), json, "alice"));
        assertThat(created.status()).isEqualTo(201);
        assertThat(Conformance.verdict(contract, "POST", "/v1/jobs", json, created)
                        .violations())
                .isEmpty();

        ObjectNode unknownCatchUp = (ObjectNode) JSON.readTree(json);
        unknownCatchUp.put("catchUp", "sometimes");
        assertThat(Conformance.verdict(contract, "POST", "/v1/jobs", unknownCatchUp.toString(), created)
                        .violations())
                .isNotEmpty()
                .allMatch(v -> v.startsWith("the service accepted a request the document does not allow"));
    }

    private static List<String> violations(String path, Conformance.Answer answer) {
        return Conformance.verdict(contract, "GET", path, null, answer).violations();
    }

    private static Conformance.Answer answer(Gateway.Raw raw) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        raw.headers().forEach((k, v) -> headers.put(k, List.of(v)));
        return new Conformance.Answer(raw.statusCode(), headers, raw.body());
    }

    private static Conformance.Answer withBody(Conformance.Answer a, String body) {
        return new Conformance.Answer(a.status(), a.headers(), body);
    }

    private static void replace(Map<String, List<String>> headers, String name, String value) {
        headers.keySet().removeIf(k -> k.equalsIgnoreCase(name));
        headers.put(name, List.of(value));
    }

    private static Conformance.Answer withHeaders(
            Conformance.Answer a, java.util.function.Consumer<Map<String, List<String>>> change) {
        Map<String, List<String>> headers = new LinkedHashMap<>(a.headers());
        change.accept(headers);
        return new Conformance.Answer(a.status(), headers, a.body());
    }
}
