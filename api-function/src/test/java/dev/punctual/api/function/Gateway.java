package dev.punctual.api.function;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.callback.QuarkusTestBeforeEachCallback;
import io.quarkus.test.junit.callback.QuarkusTestMethodContext;
import io.restassured.RestAssured;
import io.restassured.builder.ResponseBuilder;
import io.restassured.filter.Filter;
import io.restassured.filter.FilterContext;
import io.restassured.http.Header;
import io.restassured.http.Headers;
import io.restassured.response.Response;
import io.restassured.specification.FilterableRequestSpecification;
import io.restassured.specification.FilterableResponseSpecification;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends every RestAssured request of these tests to the function as API Gateway would after its authorizer: an
 * HTTP API (payload v2) event whose {@code requestContext.authorizer} carries a verified identity, posted raw to
 * the Lambda mock event server. The mock server's own HTTP-to-event conversion cannot carry an authorizer, so
 * without this the tests could only exercise an anonymous API.
 *
 * <p>The caller is chosen per request with the test-only header {@value #USER} (removed before the event is
 * built): a user name (JWT claims {@code iss} {@value #ISSUER}, {@code sub} the name), {@value #ANONYMOUS} (no
 * authorizer context at all), or {@code iam:<arn>} (an IAM-signed caller). Default: {@value #DEFAULT_USER}.
 * Every answer is checked against the OpenAPI document ({@link Conformance}) before the test sees it.
 * Registered before every test of this module (a Quarkus test callback, so that it reaches the RestAssured the
 * tests see: they run in Quarkus's class loader).
 */
public final class Gateway implements Filter, QuarkusTestBeforeEachCallback {
    static final String USER = "X-Test-User";
    static final String ANONYMOUS = "anonymous";
    static final String DEFAULT_USER = "alice";
    static final String ISSUER = "https://idp.example.test/";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Gateway INSTANCE = new Gateway();
    private static final Set<Class<?>> TEST_CLASSES = ConcurrentHashMap.newKeySet();

    /** The owner the API derives for a test user's token. */
    static String owner(String user) {
        return ISSUER + "|sub:" + user;
    }

    /** The test classes that have run a test in this application (this class loader). */
    static Set<Class<?>> testClasses() {
        return Set.copyOf(TEST_CLASSES);
    }

    @Override
    public void beforeEach(QuarkusTestMethodContext context) {
        TEST_CLASSES.add(context.getTestInstance().getClass());
        synchronized (Gateway.class) {
            if (RestAssured.filters().stream().noneMatch(f -> f instanceof Gateway)) {
                RestAssured.filters(INSTANCE);
            }
        }
    }

    @Override
    public Response filter(FilterableRequestSpecification req, FilterableResponseSpecification res, FilterContext ctx) {
        URI uri = URI.create(req.getURI());
        JsonNode raw;
        try {
            String user =
                    req.getHeaders().hasHeaderWithName(USER) ? req.getHeaders().getValue(USER) : DEFAULT_USER;
            Map<String, String> headers = new java.util.LinkedHashMap<>();
            for (Header h : req.getHeaders()) {
                if (!h.getName().equalsIgnoreCase(USER)) {
                    headers.merge(h.getName().toLowerCase(Locale.ROOT), h.getValue(), (a, b) -> a + "," + b);
                }
            }
            if (req.getContentType() != null) {
                headers.putIfAbsent("content-type", req.getContentType());
            }
            raw = post(uri, event(req.getMethod(), uri, headers, req.getBody(), user));
        } catch (Exception e) {
            throw new IllegalStateException("could not invoke the function through the mock event server", e);
        }
        conform(req.getMethod(), uri, req.getBody(), raw);
        return response(raw);
    }

    /** Checks the answer against the OpenAPI document ({@link Conformance}): a violation fails the test. */
    private static void conform(String method, URI uri, Object body, JsonNode raw) {
        Conformance.check(method, uri.getRawPath(), text(body), answer(raw), () -> document(uri));
    }

    /** The same, for an answer a test had from the function's handler directly. */
    static void conform(String method, String rawPath, Conformance.Answer answer) {
        URI base = URI.create(RestAssured.baseURI + ":" + RestAssured.port);
        Conformance.check(method, rawPath, null, answer, () -> document(base));
    }

    /** The document as the function serves it. */
    private static String document(URI any) {
        try {
            URI uri = URI.create(any.getScheme() + "://" + any.getRawAuthority() + "/v1/openapi?format=json");
            return answer(post(uri, event("GET", uri, Map.of(), null, DEFAULT_USER)))
                    .body();
        } catch (Exception e) {
            throw new IllegalStateException("could not read the OpenAPI document", e);
        }
    }

    /** What the function answered to one event. */
    record Raw(int statusCode, Map<String, String> headers, String body) {
        String contentType() {
            return headers.entrySet().stream()
                    .filter(e -> e.getKey().equalsIgnoreCase("content-type"))
                    .map(Map.Entry::getValue)
                    .findFirst()
                    .orElse(null);
        }
    }

    /**
     * One request exactly as given (headers, body, no content type added), as {@code user}: for tests that must
     * control what RestAssured would add.
     */
    static Raw invoke(String method, String path, Map<String, String> headers, String body, String user)
            throws Exception {
        URI uri = URI.create(RestAssured.baseURI + ":" + RestAssured.port + path);
        JsonNode raw = post(uri, event(method, uri, headers, body, user));
        conform(method, uri, body, raw);
        Response r = response(raw);
        Map<String, String> out = new java.util.LinkedHashMap<>();
        r.getHeaders().forEach(h -> out.merge(h.getName(), h.getValue(), (a, b) -> a + "," + b));
        return new Raw(r.statusCode(), out, r.asString());
    }

    private static JsonNode post(URI uri, ObjectNode event) throws Exception {
        HttpResponse<String> raw = HTTP.send(
                HttpRequest.newBuilder(URI.create(uri.getScheme() + "://" + uri.getAuthority() + "/_lambda_"))
                        .header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(event)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(raw.body());
    }

    private static ObjectNode event(
            String method, URI uri, Map<String, String> requestHeaders, Object body, String user) throws Exception {
        ObjectNode e = JSON.createObjectNode();
        e.put("version", "2.0");
        e.put("routeKey", "$default");
        e.put("rawPath", uri.getRawPath());
        e.put("rawQueryString", uri.getRawQuery() == null ? "" : uri.getRawQuery());
        ObjectNode headers = e.putObject("headers");
        requestHeaders.forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v));
        ObjectNode rc = e.putObject("requestContext");
        rc.put("accountId", "123456789012");
        rc.put("apiId", "test");
        rc.put("domainName", uri.getHost());
        rc.put("requestId", UUID.randomUUID().toString());
        rc.put("stage", "$default");
        rc.put("timeEpoch", System.currentTimeMillis());
        ObjectNode http = rc.putObject("http");
        http.put("method", method);
        http.put("path", uri.getRawPath());
        http.put("protocol", "HTTP/1.1");
        http.put("sourceIp", "127.0.0.1");
        if (user.startsWith("iam:")) {
            String arn = user.substring(4);
            ObjectNode iam = rc.putObject("authorizer").putObject("iam");
            iam.put("userArn", arn);
            iam.put("accountId", arn.split(":")[4]);
            iam.put("callerId", "AROAEXAMPLE:session");
        } else if (!user.equals(ANONYMOUS)) {
            ObjectNode jwt = rc.putObject("authorizer").putObject("jwt");
            ObjectNode claims = jwt.putObject("claims");
            claims.put("iss", ISSUER);
            claims.put("sub", user);
            claims.put("aud", "punctual");
            claims.put("team", "team-of-" + user.replaceAll("\\d", ""));
            jwt.putArray("scopes");
        }
        if (body != null) {
            // API Gateway passes the body's length on, as an HTTP server sees it.
            if (body instanceof byte[] bytes) {
                e.put("body", Base64.getEncoder().encodeToString(bytes));
                e.put("isBase64Encoded", true);
                headers.put("content-length", Integer.toString(bytes.length));
            } else {
                String text = text(body);
                e.put("body", text);
                e.put("isBase64Encoded", false);
                headers.put("content-length", Integer.toString(text.getBytes(StandardCharsets.UTF_8).length));
            }
        } else {
            e.put("isBase64Encoded", false);
        }
        return e;
    }

    /** A request body as sent: text as given, bytes as UTF-8, anything else as JSON; null for none. */
    private static String text(Object body) {
        try {
            return switch (body) {
                case null -> null;
                case String s -> s;
                case byte[] bytes -> new String(bytes, StandardCharsets.UTF_8);
                default -> JSON.writeValueAsString(body);
            };
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("a request body that is not JSON", e);
        }
    }

    /** The function's answer to one event: status, every header with all its values, the body as text. */
    static Conformance.Answer answer(JsonNode r) {
        Map<String, List<String>> headers = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> h : iterable(r.path("headers"))) {
            headers.computeIfAbsent(h.getKey(), k -> new ArrayList<>())
                    .add(h.getValue().asText());
        }
        for (Map.Entry<String, JsonNode> h : iterable(r.path("multiValueHeaders"))) {
            for (JsonNode v : h.getValue()) {
                headers.computeIfAbsent(h.getKey(), k -> new ArrayList<>()).add(v.asText());
            }
        }
        return new Conformance.Answer(
                r.path("statusCode").asInt(), headers, new String(bodyBytes(r), StandardCharsets.UTF_8));
    }

    private static byte[] bodyBytes(JsonNode r) {
        String text = r.path("body").isNull() || r.path("body").isMissingNode()
                ? ""
                : r.path("body").asText();
        return r.path("isBase64Encoded").asBoolean()
                ? Base64.getDecoder().decode(text)
                : text.getBytes(StandardCharsets.UTF_8);
    }

    private static Response response(JsonNode r) {
        int status = r.path("statusCode").asInt();
        List<Header> headers = new ArrayList<>();
        String contentType = null;
        for (Map.Entry<String, JsonNode> h : iterable(r.path("headers"))) {
            headers.add(new Header(h.getKey(), h.getValue().asText()));
            if (h.getKey().equalsIgnoreCase("content-type")) {
                contentType = h.getValue().asText();
            }
        }
        for (Map.Entry<String, JsonNode> h : iterable(r.path("multiValueHeaders"))) {
            for (JsonNode v : h.getValue()) {
                headers.add(new Header(h.getKey(), v.asText()));
                if (h.getKey().equalsIgnoreCase("content-type")) {
                    contentType = v.asText();
                }
            }
        }
        byte[] body = bodyBytes(r);
        ResponseBuilder b = new ResponseBuilder()
                .setStatusCode(status)
                .setStatusLine("HTTP/1.1 " + status)
                .setHeaders(new Headers(headers))
                .setBody(body);
        if (contentType != null) {
            b.setContentType(contentType);
        }
        return b.build();
    }

    private static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode n) {
        return n::fields;
    }
}
