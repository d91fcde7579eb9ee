package dev.punctual.api;

import dev.punctual.core.service.Cursors;
import dev.punctual.core.service.RunLogs;
import dev.punctual.core.service.SchedulePreview;
import io.quarkus.smallrye.openapi.OpenApiFilter;
import jakarta.ws.rs.core.HttpHeaders;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;
import org.eclipse.microprofile.openapi.models.security.SecurityScheme;

/**
 * What the OpenAPI document says beyond what Quarkus reads from the resources, added once here (at build time: the
 * document is generated when the application is built, so this runs in no request) rather than on every method:
 *
 * <ul>
 *   <li>the problems each operation may answer with, as {@code application/problem+json} {@link Problem}s, by rules
 *       that follow from how the API works (below), with {@code 4XX} and {@code 5XX} for the rest;
 *   <li>the {@link ProblemType}s, as the enumeration of {@code Problem.type};
 *   <li>the bearer JWT every operation requires (verified by API Gateway's authorizer, or the local runner with
 *       {@code --auth});
 *   <li>the wire types of query parameters that the resources read as text to answer a bad one with a problem;
 *   <li>the headers the resources set on a success ({@link #SUCCESS_HEADERS}), and {@code WWW-Authenticate} on a 401;
 *   <li>where the API is: the origin that serves the document (one document serves the local runner and every
 *       deployment behind API Gateway);
 *   <li>which fields are always present, which may be null, and the short forms of a request ({@link WireSchemas}).
 * </ul>
 *
 * <p>The rules: every request can be malformed (400: an unknown query parameter, a bad URI) or unauthenticated
 * (401); one naming a resource in its path can find none (404); one with a body can have it too large, of another
 * media type, or invalid (413, 415, 422); one with {@code If-Match} can lack it or have a stale one (412, 428). What
 * depends on the service (409 for a state that forbids it, 429 for a quota) the resource method declares with
 * {@code @APIResponse(responseCode = "409")}: this fills in the rest.
 */
@OpenApiFilter(OpenApiFilter.RunStage.BUILD)
public class ApiDocument implements OASFilter {
    static final String BEARER = "bearer";
    static final String PROBLEM = "#/components/schemas/Problem";
    /** The batch request's record is JobBatch.Request: the generator would name it just "Request". */
    private static final Map<String, String> RENAMED_SCHEMAS = Map.of("Request", "JobBatchRequest");

    /** The headers each operation's success answer carries, as the resource methods set them. */
    static final Map<String, List<String>> SUCCESS_HEADERS = Map.of(
            "createJob", List.of(HttpHeaders.ETAG, HttpHeaders.LOCATION, JobResource.REPLAYED),
            "createJobs", List.of(JobResource.REPLAYED),
            "getJob", List.of(HttpHeaders.ETAG),
            "updateJob", List.of(HttpHeaders.ETAG),
            "registerBinary", List.of(HttpHeaders.LOCATION));

    private static final Map<String, Supplier<Header>> HEADERS = Map.of(
            HttpHeaders.ETAG,
                    () -> OASFactory.createHeader()
                            .required(true)
                            .description("the job's version, quoted: send it back in If-Match")
                            .schema(OASFactory.createSchema()
                                    .addType(SchemaType.STRING)
                                    .pattern("^\"[0-9]+\"$")),
            HttpHeaders.LOCATION,
                    () -> OASFactory.createHeader()
                            .required(true)
                            .description("the path of what was created")
                            .schema(OASFactory.createSchema()
                                    .addType(SchemaType.STRING)
                                    .format("uri-reference")),
            JobResource.REPLAYED,
                    () -> OASFactory.createHeader()
                            .description("present (true) when the answer repeats that of an earlier request with the"
                                    + " same Idempotency-Key and body")
                            .schema(OASFactory.createSchema()
                                    .addType(SchemaType.STRING)
                                    .addEnumeration("true")));

    private static final Map<String, Supplier<Schema>> QUERY_TYPES = Map.of(
            "limit", () -> integer(1, Cursors.MAX_PAGE).description("page size"),
            "count",
                    () -> integer(1, SchedulePreview.MAX_COUNT)
                            .defaultValue(SchedulePreview.DEFAULT_COUNT)
                            .description("how many fire instants"),
            "future",
                    () -> OASFactory.createSchema()
                            .addType(SchemaType.BOOLEAN)
                            .defaultValue(false)
                            .description("also the runs not due yet"),
            "from", () -> instant("the earliest due time, inclusive"),
            "to", () -> instant("the latest due time, inclusive"),
            "attempt",
                    () -> OASFactory.createSchema()
                            .addType(SchemaType.INTEGER)
                            .minimum(java.math.BigDecimal.ONE)
                            .description("the attempt whose log (default: the latest)"),
            "offset",
                    () -> OASFactory.createSchema()
                            .addType(SchemaType.INTEGER)
                            .format("int64")
                            .minimum(BigDecimal.ZERO)
                            .defaultValue(0)
                            .description("the byte of the log to start from (follow: the last Punctual-Log-Offset)"),
            "wait",
                    () -> integer(0, RunLogs.MAX_WAIT_SECONDS)
                            .defaultValue(0)
                            .description("seconds a read of a running attempt waits for new output or its end"));

    @Override
    public void filterOpenAPI(OpenAPI api) {
        RENAMED_SCHEMAS.forEach((from, to) -> rename(api, from, to));
        WireSchemas.apply(api);
        // Relative: the origin the document was read from, which is where the API is, locally (http://127.0.0.1:8080
        // by default) and behind API Gateway (its execute-api or custom domain) alike.
        api.servers(List.of(OASFactory.createServer()
                .url("/")
                .description("the origin that serves this document (its paths start with /v1)")));
        // The generator writes ProblemType's values as their @JsonValue, the URNs: say what each means.
        api.getComponents()
                .getSchemas()
                .get("ProblemType")
                .description(Arrays.stream(ProblemType.values())
                        .map(t -> "`" + t.uri() + "`: " + t.meaning())
                        .collect(Collectors.joining("; ")));
        api.getComponents()
                .addSecurityScheme(
                        BEARER,
                        OASFactory.createSecurityScheme()
                                .type(SecurityScheme.Type.HTTP)
                                .scheme("bearer")
                                .bearerFormat("JWT")
                                .description("A JWT of the issuer and audience the deployment trusts, verified by API"
                                        + " Gateway's authorizer; the tenant is <iss>|sub:<sub> (or the configured tenant"
                                        + " claim). A deployment with auth = iam takes SigV4-signed requests instead. The"
                                        + " local runner needs none unless started with --auth (bin/local-token SUBJECT"
                                        + " prints a token)."));
        api.addSecurityRequirement(OASFactory.createSecurityRequirement().addScheme(BEARER));
        Set<String> ids = new TreeSet<>();
        for (PathItem item : api.getPaths().getPathItems().values()) {
            for (Operation op : item.getOperations().values()) {
                document(op);
                if (!ids.add(op.getOperationId())) {
                    throw new IllegalStateException("two operations are " + op.getOperationId());
                }
            }
        }
        if (!ids.containsAll(SUCCESS_HEADERS.keySet())) {
            throw new IllegalStateException("SUCCESS_HEADERS names an operation that is not " + ids);
        }
    }

    private static void document(Operation op) {
        if (op.getOperationId() == null) {
            throw new IllegalStateException(
                    "an operation without an operationId: give its resource method @Operation(operationId = ...)");
        }
        List<Parameter> params = op.getParameters() == null ? List.of() : op.getParameters();
        for (Parameter p : params) {
            Supplier<Schema> type = QUERY_TYPES.get(p.getName());
            if (p.getIn() == Parameter.In.QUERY && type != null) {
                p.setSchema(type.get());
            }
            if (p.getIn() == Parameter.In.HEADER && p.getName().equals("If-Match")) {
                // The resource reads it as an optional header to answer its absence with a 428 problem.
                p.required(true)
                        .description("the ETag read (\"3\"; also 3 or W/\"3\"), or * for whichever version is current");
            }
        }
        Set<Integer> statuses = new TreeSet<>(List.of(400, 401));
        if (params.stream().anyMatch(p -> p.getIn() == Parameter.In.PATH)) {
            statuses.add(404);
        }
        if (op.getRequestBody() != null) {
            statuses.addAll(List.of(413, 415, 422));
        }
        if (params.stream()
                .anyMatch(p -> p.getIn() == Parameter.In.HEADER && p.getName().equals("If-Match"))) {
            statuses.addAll(List.of(412, 428));
        }
        APIResponses responses = op.getResponses();
        for (String name : SUCCESS_HEADERS.getOrDefault(op.getOperationId(), List.of())) {
            success(responses).addHeader(name, HEADERS.get(name).get());
        }
        // Those the resource method declares itself (@APIResponse with just a code), as 409 and 429 are.
        responses.getAPIResponses().keySet().stream()
                .filter(code -> !code.startsWith("2"))
                .forEach(code -> statuses.add(Integer.parseInt(code)));
        for (int status : statuses) {
            APIResponse problem = problem(describe(status), status == 429);
            if (status == 401) {
                problem.addHeader(
                        "WWW-Authenticate",
                        OASFactory.createHeader()
                                .required(true)
                                .description("Bearer")
                                .schema(OASFactory.createSchema().addType(SchemaType.STRING)));
            }
            responses.addAPIResponse(Integer.toString(status), problem);
        }
        responses.addAPIResponse("4XX", problem(describeOthers(400, 499, statuses), false));
        responses.addAPIResponse("5XX", problem(describeOthers(500, 599, statuses), true));
    }

    /**
     * The operation's one success response: its only 2xx, or, for a creation that also answers a dry run (200,
     * without the creation's headers), its 201.
     */
    private static APIResponse success(APIResponses responses) {
        Map<String, APIResponse> all = responses.getAPIResponses();
        if (all.containsKey("201") && all.containsKey("200")) {
            return all.get("201");
        }
        List<APIResponse> ok = all.entrySet().stream()
                .filter(e -> e.getKey().startsWith("2"))
                .map(Map.Entry::getValue)
                .toList();
        if (ok.size() != 1) {
            throw new IllegalStateException(
                    "not one success response: " + responses.getAPIResponses().keySet());
        }
        return ok.get(0);
    }

    /** A problem response; {@code retryAfter} for those that say when to try again (429 and 503). */
    private static APIResponse problem(String description, boolean retryAfter) {
        APIResponse r = OASFactory.createAPIResponse()
                .description(description)
                .content(OASFactory.createContent()
                        .addMediaType(
                                Problem.MEDIA_TYPE,
                                OASFactory.createMediaType()
                                        .schema(OASFactory.createSchema().ref(PROBLEM))));
        if (retryAfter) {
            Header header = OASFactory.createHeader()
                    .description("seconds to wait before trying again")
                    .schema(OASFactory.createSchema().addType(SchemaType.INTEGER));
            r.addHeader("Retry-After", header);
        }
        return r;
    }

    /** The problem types answered with {@code status}, each with what it means. */
    private static String describe(int status) {
        return Arrays.stream(ProblemType.values())
                .filter(t -> t.statuses().contains(status))
                .map(t -> "`" + t.uri() + "`: " + t.meaning())
                .collect(Collectors.joining("; "));
    }

    /** The types of the statuses in [from, to] not listed on their own, and RFC 9457's for a bare status. */
    private static String describeOthers(int from, int to, Set<Integer> listed) {
        StringBuilder b = new StringBuilder();
        for (ProblemType t : ProblemType.values()) {
            List<String> others = t.statuses().stream()
                    .filter(s -> s >= from && s <= to && !listed.contains(s))
                    .map(String::valueOf)
                    .toList();
            if (!others.isEmpty()) {
                b.append('`')
                        .append(t.uri())
                        .append("` (")
                        .append(String.join(", ", others))
                        .append("): ");
                b.append(t.meaning()).append("; ");
            }
        }
        return b.append('`')
                .append(ProblemType.HTTP_STATUS.uri())
                .append("`: ")
                .append(ProblemType.HTTP_STATUS.meaning())
                .toString();
    }

    private static Schema integer(int min, int max) {
        return OASFactory.createSchema()
                .addType(SchemaType.INTEGER)
                .format("int32")
                .minimum(BigDecimal.valueOf(min))
                .maximum(BigDecimal.valueOf(max));
    }

    private static Schema instant(String description) {
        return OASFactory.createSchema()
                .addType(SchemaType.STRING)
                .format("date-time")
                .description(description + " (RFC 3339)");
    }

    /** Renames a component schema and every reference to it (they are only ever request bodies here). */
    private static void rename(OpenAPI api, String from, String to) {
        Schema schema = api.getComponents().getSchemas().get(from);
        if (schema == null) {
            throw new IllegalStateException("no schema " + from + " to rename: update RENAMED_SCHEMAS");
        }
        api.getComponents().removeSchema(from);
        api.getComponents().addSchema(to, schema);
        String oldRef = "#/components/schemas/" + from;
        for (PathItem item : api.getPaths().getPathItems().values()) {
            for (Operation op : item.getOperations().values()) {
                if (op.getRequestBody() == null) {
                    continue;
                }
                op.getRequestBody().getContent().getMediaTypes().values().stream()
                        .map(m -> m.getSchema())
                        .filter(s -> s != null && oldRef.equals(s.getRef()))
                        .forEach(s -> s.setRef("#/components/schemas/" + to));
            }
        }
    }
}
