package dev.punctual.api.function;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import dev.punctual.api.Problem;
import dev.punctual.api.ProblemType;
import dev.punctual.api.ResourceRoutes;
import dev.punctual.core.service.JobView;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.jboss.resteasy.reactive.RestQuery;
import org.jboss.resteasy.reactive.RestResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document the function serves (through the Lambda path, as API Gateway would) says what the code does:
 * the same routes as the JAX-RS resources, each with the body types its Java signature has, problem responses that
 * are {@code application/problem+json} {@link Problem}s, and every {@link ProblemType}.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class OpenApiLambdaTest {
    private static final String SCHEMAS = "#/components/schemas/";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static JsonNode doc;
    private static List<ResourceRoutes.Route> routes;

    /** Read once, in the first test: RestAssured reaches the function only once a test runs. */
    @BeforeEach
    void read() throws Exception {
        if (doc == null) {
            doc = JSON.readTree(given().queryParam("format", "json")
                    .get("/v1/openapi")
                    .then()
                    .statusCode(200)
                    .extract()
                    .asString());
            routes = ResourceRoutes.all();
        }
    }

    @Test
    void isOpenApi31AboutPunctualAtTheProjectsVersion() {
        assertThat(doc.path("openapi").asText()).startsWith("3.1.");
        assertThat(doc.path("info").path("title").asText()).isEqualTo("Punctual");
        assertThat(doc.path("info").path("version").asText())
                .isEqualTo(ConfigProvider.getConfig().getValue("quarkus.application.version", String.class));
    }

    /**
     * Read by swagger-parser, which shares no code with the generator that wrote it, with its validation on: it has
     * nothing to say. (A broken document makes it talk: {@link #theIndependentParserReportsABrokenDocument}.)
     */
    @Test
    void anIndependentParserFindsNothingWrongWithIt() {
        String yaml =
                given().get("/v1/openapi").then().statusCode(200).extract().asString();
        SwaggerParseResult parsed = parse(yaml);
        assertThat(parsed.getMessages()).isEmpty();
        assertThat(parsed.getOpenAPI().getPaths()).hasSize(doc.path("paths").size());
    }

    @Test
    void theIndependentParserReportsABrokenDocument() {
        ObjectNode broken = doc.deepCopy();
        ((ObjectNode) broken.path("paths").path("/v1/jobs").path("get")).remove("responses");
        ((ObjectNode) broken.path("paths").path("/v1/jobs").path("post")).put("operationId", "listJobs");
        assertThat(parse(broken.toString()).getMessages())
                .anyMatch(m -> m.contains("responses is missing"))
                .anyMatch(m -> m.contains("operationId is repeated"));
    }

    private static SwaggerParseResult parse(String document) {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        options.setValidateInternalRefs(true);
        return new OpenAPIV3Parser().readContents(document, null, options);
    }

    /** Names a generated client calls its methods by: stable, so they are listed here, not derived from the paths. */
    @Test
    void everyOperationHasItsStableOperationId() {
        Map<String, String> ids = new TreeMap<>();
        doc.path("paths")
                .properties()
                .forEach(p -> p.getValue()
                        .properties()
                        .forEach(op -> ids.put(
                                op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + p.getKey(),
                                op.getValue().path("operationId").asText())));
        assertThat(ids)
                .isEqualTo(new TreeMap<>(Map.ofEntries(
                        Map.entry("POST /v1/binaries", "registerBinary"),
                        Map.entry("GET /v1/binaries", "listBinaries"),
                        Map.entry("GET /v1/binaries/{id}", "getBinary"),
                        Map.entry("POST /v1/jobs", "createJob"),
                        Map.entry("GET /v1/jobs", "listJobs"),
                        Map.entry("POST /v1/jobs/batch", "createJobs"),
                        Map.entry("GET /v1/jobs/{id}", "getJob"),
                        Map.entry("PUT /v1/jobs/{id}", "updateJob"),
                        Map.entry("DELETE /v1/jobs/{id}", "deleteJob"),
                        Map.entry("POST /v1/jobs/{id}/trigger", "triggerJob"),
                        Map.entry("POST /v1/jobs/{id}/pause", "pauseJob"),
                        Map.entry("POST /v1/jobs/{id}/resume", "resumeJob"),
                        Map.entry("POST /v1/jobs/{id}/backfill", "backfillJob"),
                        Map.entry("GET /v1/jobs/{id}/next", "getNextOccurrences"),
                        Map.entry("GET /v1/jobs/{id}/runs", "listJobRuns"),
                        Map.entry("GET /v1/jobs/{id}/runs/{runId}", "getRun"),
                        Map.entry("GET /v1/jobs/{id}/runs/{runId}/log", "getRunLog"),
                        Map.entry("POST /v1/jobs/{id}/runs/{runId}/retry", "retryRun"),
                        Map.entry("GET /v1/runs", "listRuns"),
                        Map.entry("POST /v1/schedules/preview", "previewSchedule"))));
    }

    /** Relative: the API is wherever the document was read from, the local runner or API Gateway. */
    @Test
    void theServerIsTheOriginThatServesTheDocument() {
        assertThat(doc.path("servers")).hasSize(1);
        assertThat(doc.path("servers").path(0).path("url").asText()).isEqualTo("/");
    }

    /**
     * The short forms a request may use validate against the request's schema, and what the service refuses does
     * not: {@code catchUp} as just its mode, a {@code dates} entry as just an instant.
     */
    @Test
    void theShortFormsOfARequestAreInItsSchema() throws Exception {
        ApiContract contract = new ApiContract(doc.toString());
        var schema = contract.schema(JSON.createObjectNode().put("$ref", SCHEMAS + "JobRequest"));
        String dates = "{\"type\": \"dates\", \"dates\": [\"2030-01-01T09:00:00Z\","
                + " {\"local\": \"2030-03-31T02:30:00\", \"zone\": \"Europe/Berlin\"}]}";
        String job = "{\"name\": \"n\", \"binaryId\": \"bin_1\", \"schedule\": " + dates + ", \"catchUp\": %s}";
        assertThat(schema.validate(job.formatted("\"latest\""), InputFormat.JSON))
                .isEmpty();
        assertThat(schema.validate(job.formatted("{\"mode\": \"all\", \"maxRuns\": 5}"), InputFormat.JSON))
                .isEmpty();
        assertThat(schema.validate(job.formatted("\"sometimes\""), InputFormat.JSON))
                .isNotEmpty();
        assertThat(schema.validate(job.formatted("5"), InputFormat.JSON)).isNotEmpty();
    }

    /**
     * What a job answer always has and what may be null, as a strict client must read it: every field is there,
     * and those that may be null say so.
     */
    @Test
    void aJobAnswerRequiresEveryFieldAndSaysWhichMayBeNull() {
        JsonNode job = doc.path("components").path("schemas").path("JobView");
        Set<String> required = new TreeSet<>();
        job.path("required").forEach(r -> required.add(r.asText()));
        assertThat(required)
                .isEqualTo(new TreeSet<>(Arrays.stream(JobView.class.getRecordComponents())
                        .map(RecordComponent::getName)
                        .toList()));
        Set<String> nullable = new TreeSet<>();
        job.path("properties").properties().forEach(p -> {
            boolean typeNull = p.getValue().path("type").isArray()
                    && p.getValue().path("type").toString().contains("\"null\"");
            boolean oneOfNull = p.getValue().path("oneOf").toString().contains("{\"type\":\"null\"}");
            if (typeNull || oneOfNull) {
                nullable.add(p.getKey());
            }
        });
        assertThat(nullable)
                .containsExactlyInAnyOrder(
                        "id", "nextRunAt", "pausedAt", "pauseNote", "jitter", "limits", "webhook", "expect");
    }

    @Test
    void isServedAsYamlByDefault() {
        String yaml =
                given().get("/v1/openapi").then().statusCode(200).extract().asString();
        assertThat(yaml).contains("openapi: 3.1.");
    }

    @Test
    void hasExactlyTheRoutesOfTheResources() {
        Set<String> documented = new TreeSet<>();
        doc.path("paths")
                .properties()
                .forEach(p -> p.getValue()
                        .properties()
                        .forEach(op ->
                                documented.add(op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + p.getKey())));
        Set<String> served = new TreeSet<>();
        routes.forEach(r -> served.add(r.key()));
        assertThat(documented).isEqualTo(served);
    }

    @Test
    void eachOperationHasTheBodiesAndQueryParametersOfItsJavaMethod() {
        for (ResourceRoutes.Route r : routes) {
            JsonNode op = operation(r);
            String where = r.key();
            Map.Entry<String, JsonNode> success = success(op, where);
            Type returned = unwrap(r.javaMethod().getGenericReturnType());
            if (returned == Void.class) {
                assertThat(success.getKey()).as(where).isEqualTo("204");
                assertThat(success.getValue().has("content")).as(where).isFalse();
            } else {
                JsonNode schema = onlyContent(success.getValue(), where).path("schema");
                assertThat(schemaName(schema)).as(where).isEqualTo(expectedName(returned));
            }
            Class<?> bodyType = bodyType(r.javaMethod());
            JsonNode body = op.path("requestBody");
            if (bodyType == null) {
                assertThat(body.isMissingNode()).as(where + " has no body").isTrue();
            } else {
                JsonNode json = body.path("content").path("application/json");
                assertThat(schemaName(json.path("schema"))).as(where).isEqualTo(expectedName(bodyType));
            }
            Set<String> query = new TreeSet<>();
            op.path("parameters").forEach(p -> {
                if (p.path("in").asText().equals("query")) {
                    query.add(p.path("name").asText());
                }
            });
            assertThat(query).as(where).isEqualTo(queryParams(r.javaMethod()));
        }
    }

    @Test
    void resumesBodyIsAnOptionalResumeRequest() {
        JsonNode body =
                doc.path("paths").path("/v1/jobs/{id}/resume").path("post").path("requestBody");
        assertThat(body.path("required").asBoolean(true)).isFalse();
        assertThat(body.path("content")
                        .path("application/json")
                        .path("schema")
                        .path("$ref")
                        .asText())
                .isEqualTo(SCHEMAS + "ResumeRequest");
    }

    @Test
    void queryParametersHaveTheirWireTypes() {
        Map<String, String> types = Map.of(
                "limit", "integer", "count", "integer", "future", "boolean", "from", "string", "to", "string",
                "attempt", "integer", "offset", "integer", "wait", "integer");
        int seen = 0;
        for (ResourceRoutes.Route r : routes) {
            for (JsonNode p : operation(r).path("parameters")) {
                String type = types.get(p.path("name").asText());
                if (type != null && p.path("in").asText().equals("query")) {
                    seen++;
                    assertThat(p.path("schema").path("type").asText())
                            .as(r.key() + " " + p)
                            .isEqualTo(type);
                    if (type.equals("string")) {
                        assertThat(p.path("schema").path("format").asText()).isEqualTo("date-time");
                    }
                }
            }
        }
        assertThat(seen)
                .as("limit, count, future, from and to are documented somewhere")
                .isGreaterThan(5);
    }

    @Test
    void everyErrorResponseIsAProblemAndEveryOperationHasTheCommonOnes() {
        for (ResourceRoutes.Route r : routes) {
            JsonNode responses = operation(r).path("responses");
            assertThat(names(responses)).as(r.key()).contains("400", "401", "4XX", "5XX");
            if (r.path().contains("{")) {
                assertThat(names(responses)).as(r.key()).contains("404");
            }
            for (APIResponse declared : r.javaMethod().getAnnotationsByType(APIResponse.class)) {
                assertThat(names(responses)).as(r.key()).contains(declared.responseCode());
            }
            responses.properties().forEach(e -> {
                if (!e.getKey().startsWith("2")) {
                    JsonNode content = e.getValue().path("content");
                    assertThat(names(content)).as(r.key() + " " + e.getKey()).containsExactly(Problem.MEDIA_TYPE);
                    assertThat(content.path(Problem.MEDIA_TYPE)
                                    .path("schema")
                                    .path("$ref")
                                    .asText())
                            .as(r.key() + " " + e.getKey())
                            .isEqualTo(SCHEMAS + "Problem");
                }
            });
        }
    }

    @Test
    void theProblemSchemaIsTheRecordAndListsEveryProblemType() {
        JsonNode problem = doc.path("components").path("schemas").path("Problem");
        assertThat(names(problem.path("properties")))
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(Problem.class.getRecordComponents())
                        .map(RecordComponent::getName)
                        .toList());
        assertThat(problem.path("properties").path("type").path("$ref").asText())
                .isEqualTo(SCHEMAS + "ProblemType");
        Set<String> listed = new TreeSet<>();
        doc.path("components").path("schemas").path("ProblemType").path("enum").forEach(t -> listed.add(t.asText()));
        Set<String> produced = new TreeSet<>();
        Arrays.stream(ProblemType.values()).forEach(t -> produced.add(t.uri()));
        assertThat(listed).isEqualTo(produced);
    }

    @Test
    void aProblemTheFunctionAnswersHasATypeTheDocumentLists() {
        String type = given().header("Accept", "text/html")
                .get("/v1/jobs")
                .then()
                .statusCode(406)
                .contentType(Problem.MEDIA_TYPE)
                .extract()
                .path("type");
        assertThat(type).isEqualTo(ProblemType.NOT_ACCEPTABLE.uri());
    }

    @Test
    void everyOperationRequiresTheBearerJwt() {
        JsonNode scheme = doc.path("components").path("securitySchemes").path("bearer");
        assertThat(scheme.path("type").asText()).isEqualTo("http");
        assertThat(scheme.path("scheme").asText()).isEqualTo("bearer");
        assertThat(scheme.path("bearerFormat").asText()).isEqualTo("JWT");
        assertThat(doc.path("security").findValues("bearer")).isNotEmpty();
    }

    /**
     * The document is no resource of the api module: no identity is asked for it (API Gateway's authorizer guards
     * the route in AWS). It holds no tenant's data.
     */
    @Test
    void isServedWithoutTheApisOwnIdentityCheck() {
        given().header(Gateway.USER, Gateway.ANONYMOUS)
                .get("/v1/openapi")
                .then()
                .statusCode(200);
        given().header(Gateway.USER, Gateway.ANONYMOUS).get("/v1/jobs").then().statusCode(401);
    }

    private static JsonNode operation(ResourceRoutes.Route r) {
        JsonNode op = doc.path("paths").path(r.path()).path(r.method().toLowerCase(java.util.Locale.ROOT));
        assertThat(op.isMissingNode()).as(r.key() + " is documented").isFalse();
        return op;
    }

    private static Map.Entry<String, JsonNode> success(JsonNode op, String where) {
        List<Map.Entry<String, JsonNode>> ok = new ArrayList<>();
        op.path("responses").properties().forEach(e -> {
            if (e.getKey().startsWith("2")) {
                ok.add(e);
            }
        });
        if (ok.size() == 2
                && ok.get(0).getKey().equals("200")
                && ok.get(1).getKey().equals("201")) {
            // A creation that also answers a dry run: the same body, without the creation's headers.
            assertThat(onlyContent(ok.get(0).getValue(), where).path("schema"))
                    .as(where + ": a dry run answers with what the creation would")
                    .isEqualTo(onlyContent(ok.get(1).getValue(), where).path("schema"));
            assertThat(ok.get(0).getValue().has("headers")).as(where).isFalse();
            return ok.get(1);
        }
        assertThat(ok).as(where + ": one success response").hasSize(1);
        return ok.get(0);
    }

    private static JsonNode onlyContent(JsonNode response, String where) {
        JsonNode content = response.path("content");
        assertThat(content.size()).as(where + ": one media type").isEqualTo(1);
        return content.elements().next();
    }

    /** A schema's component name, or its inline type. */
    private static String schemaName(JsonNode schema) {
        String ref = schema.path("$ref").asText();
        return ref.startsWith(SCHEMAS)
                ? ref.substring(SCHEMAS.length())
                : schema.path("type").asText();
    }

    /** How the generator names a Java type: Page<JobView> is PageJobView, JobBatch.Request JobBatchRequest. */
    private static String expectedName(Type t) {
        if (t == String.class) {
            return "string";
        }
        if (t instanceof ParameterizedType p) {
            StringBuilder b = new StringBuilder(((Class<?>) p.getRawType()).getSimpleName());
            Arrays.stream(p.getActualTypeArguments()).forEach(a -> b.append(expectedName(a)));
            return b.toString();
        }
        Class<?> c = (Class<?>) t;
        return c.getEnclosingClass() == null
                ? c.getSimpleName()
                : c.getEnclosingClass().getSimpleName() + c.getSimpleName();
    }

    private static Type unwrap(Type t) {
        if (t instanceof ParameterizedType p && p.getRawType() == RestResponse.class) {
            return p.getActualTypeArguments()[0];
        }
        return t;
    }

    /**
     * The type of the method's entity parameter (the one without a JAX-RS annotation), or the type its OpenAPI
     * {@link RequestBody} names when it reads the body itself.
     */
    private static Class<?> bodyType(Method m) {
        for (var p : m.getParameters()) {
            RequestBody declared = p.getAnnotation(RequestBody.class);
            if (declared != null) {
                return declared.content()[0].schema().implementation();
            }
            boolean annotated = Arrays.stream(p.getAnnotations())
                    .anyMatch(a -> a.annotationType().getPackageName().startsWith("org.jboss.resteasy.reactive"));
            if (!annotated) {
                return p.getType();
            }
        }
        return null;
    }

    private static Set<String> queryParams(Method m) {
        Set<String> out = new TreeSet<>();
        for (var p : m.getParameters()) {
            RestQuery q = p.getAnnotation(RestQuery.class);
            if (q != null) {
                out.add(q.value());
            }
        }
        return out;
    }

    private static Set<String> names(JsonNode object) {
        Set<String> out = new LinkedHashSet<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
