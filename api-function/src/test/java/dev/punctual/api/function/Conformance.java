package dev.punctual.api.function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Every answer the tests of this module receive, checked against the OpenAPI document the function serves, as a
 * strict client generated from it would check it: the operation is found by method and path template, its response
 * by status (the code, else {@code 4XX}/{@code 5XX}); the content type must be one the response declares, a JSON body
 * must be valid against its schema, a header it declares required must be there, every header it declares must
 * match its schema, and a header of the API's own that it does not declare is a violation too. An answer to what is
 * no operation of the document (an unknown path or method under {@code /v1}) must be a {@code Problem}. A request
 * body the service accepted (a 2xx) must be valid against the operation's request schema: what the service takes,
 * a client built from the document must be able to send.
 *
 * <p>A violation fails the test that received the answer ({@link AssertionError}), naming the operation, the status
 * and what is wrong. What was checked is counted, for {@link ConformanceCoverageLambdaTest}.
 */
final class Conformance {
    /** Headers of HTTP itself or of the Lambda adapter, not of the API: no document declares them. */
    private static final Set<String> TRANSPORT = Set.of("content-type", "content-length", "date", "connection");
    /** Outside the document: the document itself, the dashboard, health. */
    private static final String API = "/v1/";

    private static final String OPENAPI = "/v1/openapi";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final AtomicInteger CHECKED = new AtomicInteger();
    private static final AtomicInteger OUTSIDE = new AtomicInteger();
    private static final AtomicInteger REQUESTS = new AtomicInteger();
    /** operationId: the statuses (as documented: 201, 4XX) answered and checked. */
    private static final Map<String, Set<String>> SEEN = new ConcurrentHashMap<>();

    private static volatile ApiContract contract;

    private Conformance() {}

    /** One answer, as received. */
    record Answer(int status, Map<String, List<String>> headers, String body) {
        Optional<String> header(String name) {
            return headers.entrySet().stream()
                    .filter(e -> e.getKey().equalsIgnoreCase(name))
                    .flatMap(e -> e.getValue().stream())
                    .findFirst();
        }
    }

    /** What was found of one exchange: the operation and documented status it was checked as, what is wrong. */
    record Verdict(String what, String operationId, String documented, List<String> violations) {}

    /**
     * Checks one exchange; {@code document} reads the served document (JSON) the first time. A violation throws.
     *
     * @param requestBody the request's body as sent, or null
     */
    static void check(String method, String rawPath, String requestBody, Answer answer, Supplier<String> document) {
        if (!rawPath.startsWith(API) || rawPath.equals(OPENAPI)) {
            OUTSIDE.incrementAndGet();
            return;
        }
        Verdict v = verdict(contract(document), method, rawPath, requestBody, answer);
        CHECKED.incrementAndGet();
        if (v.operationId() != null && answer.status() / 100 == 2 && requestBody != null && !requestBody.isEmpty()) {
            REQUESTS.incrementAndGet();
        }
        if (v.documented() != null) {
            SEEN.computeIfAbsent(v.operationId(), k -> new TreeSet<>()).add(v.documented());
        }
        if (!v.violations().isEmpty()) {
            throw new AssertionError(v.what() + ", which does not conform to the OpenAPI document:\n  - "
                    + String.join("\n  - ", v.violations()) + "\n  body: " + abbreviated(answer.body()));
        }
    }

    /** What is wrong with one exchange under {@code c}; counts nothing. */
    static Verdict verdict(ApiContract c, String method, String rawPath, String requestBody, Answer answer) {
        List<String> violations = new ArrayList<>();
        Optional<ApiContract.Operation> found = c.find(method, rawPath);
        if (found.isEmpty()) {
            problemOnly(c, answer, violations);
            return new Verdict(
                    method + " " + rawPath + " (no operation of the document) answered " + answer.status(),
                    null,
                    null,
                    violations);
        }
        ApiContract.Operation op = found.get();
        String what = op.describe() + " answered " + answer.status();
        Optional<Map.Entry<String, JsonNode>> response = c.response(op, answer.status());
        String documented = null;
        if (response.isEmpty()) {
            violations.add("the document has no response for this status");
        } else {
            documented = response.get().getKey();
            what += " (documented as " + documented + ")";
            checkResponse(c, response.get().getValue(), answer, violations);
        }
        if (answer.status() / 100 == 2 && requestBody != null && !requestBody.isEmpty()) {
            checkRequest(c, op, requestBody, violations);
        }
        return new Verdict(what, op.key(), documented, violations);
    }

    private static void checkResponse(ApiContract c, JsonNode response, Answer answer, List<String> violations) {
        JsonNode content = response.path("content");
        String type = answer.header("Content-Type")
                .map(t -> t.split(";")[0].trim().toLowerCase(Locale.ROOT))
                .orElse(null);
        if (content.isMissingNode() || content.isEmpty()) {
            if (!answer.body().isEmpty()) {
                violations.add("a body (" + type + ") where the document declares none");
            }
        } else if (type == null || !content.has(type)) {
            violations.add("content type " + type + ", not one of " + names(content));
        } else if (type.endsWith("json")) {
            validate(c, content.get(type).path("schema"), answer.body(), "body", violations);
        }
        JsonNode declared = response.path("headers");
        declared.properties().forEach(h -> {
            Optional<String> value = answer.header(h.getKey());
            if (value.isEmpty()) {
                if (h.getValue().path("required").asBoolean(false)) {
                    violations.add("no " + h.getKey() + " header, which the document requires");
                }
            } else {
                validateHeader(c, h.getKey(), h.getValue().path("schema"), value.get(), violations);
            }
        });
        for (String name : answer.headers().keySet()) {
            String lower = name.toLowerCase(Locale.ROOT);
            boolean isDeclared = names(declared).stream().anyMatch(d -> d.equalsIgnoreCase(name));
            if (!TRANSPORT.contains(lower) && !isDeclared) {
                violations.add("a " + name + " header the document does not declare for this response");
            }
        }
    }

    /** What answers a path or method the document does not have: a problem, and nothing else. */
    private static void problemOnly(ApiContract c, Answer answer, List<String> violations) {
        String type = answer.header("Content-Type").orElse("");
        if (answer.status() < 400 || !type.startsWith("application/problem+json")) {
            violations.add("not a problem (application/problem+json, status 4xx or 5xx) but " + type);
            return;
        }
        c.problem().validate(answer.body(), InputFormat.JSON).forEach(e -> violations.add("body: " + e));
    }

    private static void checkRequest(
            ApiContract c, ApiContract.Operation op, String requestBody, List<String> violations) {
        JsonNode schema = op.node()
                .path("requestBody")
                .path("content")
                .path("application/json")
                .path("schema");
        if (schema.isMissingNode()) {
            violations.add("the service accepted a body the document does not declare");
            return;
        }
        List<String> found = new ArrayList<>();
        validate(c, schema, requestBody, "request body", found);
        found.forEach(v -> violations.add("the service accepted a request the document does not allow: " + v));
    }

    private static void validate(ApiContract c, JsonNode schema, String json, String what, List<String> violations) {
        List<Error> errors;
        try {
            errors = c.schema(schema).validate(json, InputFormat.JSON);
        } catch (RuntimeException e) {
            violations.add(what + " is not JSON: " + e.getMessage());
            return;
        }
        errors.forEach(e -> violations.add(what + ": " + e));
    }

    /** A header is text; its schema's type says how to read it (an integer's digits, true/false). */
    private static void validateHeader(
            ApiContract c, String name, JsonNode schema, String value, List<String> violations) {
        String type = schema.path("type").asText("string");
        String json;
        try {
            json = type.equals("string")
                    ? JSON.writeValueAsString(value)
                    : JSON.readTree(value).toString();
        } catch (Exception e) {
            violations.add("header " + name + ": " + value + " is not a " + type);
            return;
        }
        c.schema(schema)
                .validate(json, InputFormat.JSON)
                .forEach(e -> violations.add("header " + name + " (" + value + "): " + e));
    }

    private static ApiContract contract(Supplier<String> document) {
        ApiContract c = contract;
        if (c == null) {
            synchronized (Conformance.class) {
                c = contract;
                if (c == null) {
                    try {
                        c = new ApiContract(document.get());
                    } catch (Exception e) {
                        throw new IllegalStateException("the OpenAPI document could not be read", e);
                    }
                    contract = c;
                }
            }
        }
        return c;
    }

    /** The document's operations, once an answer has been checked (null before). */
    static ApiContract contract() {
        return contract;
    }

    static int checked() {
        return CHECKED.get();
    }

    static int outside() {
        return OUTSIDE.get();
    }

    static int requests() {
        return REQUESTS.get();
    }

    /** operationId: the documented statuses whose answers were checked. */
    static Map<String, Set<String>> seen() {
        return new TreeMap<>(SEEN);
    }

    private static Set<String> names(JsonNode object) {
        Set<String> out = new TreeSet<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static String abbreviated(String body) {
        return body.length() <= 600 ? body : body.substring(0, 600) + "…";
    }
}
