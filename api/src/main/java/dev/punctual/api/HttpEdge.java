package dev.punctual.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.core.error.FieldError;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The part of HTTP that Vert.x handles before JAX-RS sees a request, made to answer in problem+json like the rest:
 * a body declared larger than {@code quarkus.http.limits.max-body-size} (413; Quarkus's own check would answer with
 * an empty body), a URI longer than {@value #MAX_URI_LENGTH} characters (414), a URI that is not valid, e.g. a query
 * string that is not valid percent-encoding (400 naming the parameter; see {@link #validUri}), and any 4xx Vert.x
 * fails a request with on its own. Serves both the Lambda (API Gateway events replayed into the same router) and
 * plain HTTP (the local runner).
 */
@ApplicationScoped
public class HttpEdge {
    /** After Quarkus's routes at {@code Integer.MIN_VALUE}, before its upload limit (order -2). */
    static final int ORDER = -10;
    /**
     * The longest URI answered: a 414 problem beyond it. Vert.x's own limit on the request line
     * ({@code quarkus.http.limits.max-initial-line-length}) is set higher, as past it Vert.x answers a bare 414
     * before any route runs.
     */
    static final int MAX_URI_LENGTH = 8192;
    /** The statuses Vert.x itself fails a request with, before any resource has had a say. */
    private static final Set<Integer> EDGE_STATUSES = Set.of(400, 413, 414, 431);

    @ConfigProperty(name = "quarkus.http.limits.max-body-size")
    Optional<MemorySize> maxBody;

    @Inject
    ObjectMapper json;

    void install(@Observes Router router) {
        router.route().order(ORDER).handler(this::check).failureHandler(this::failed);
    }

    private void check(RoutingContext ctx) {
        String length = ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null
                && maxBody.isPresent()
                && declaredLength(length) > maxBody.get().asLongValue()) {
            // The body is not read: close the connection rather than leave its bytes to be parsed as a request.
            ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
            tooLarge(ctx);
            return;
        }
        if (ctx.request().uri().length() > MAX_URI_LENGTH) {
            uriTooLong(ctx);
            return;
        }
        if (!validUri(ctx.request().uri())) {
            String query = ctx.request().query();
            String bad = query == null ? null : badlyEncodedParameter(query);
            send(
                    ctx,
                    400,
                    ProblemType.INVALID_REQUEST,
                    "Bad request",
                    bad,
                    bad == null ? "the request's URI is not valid (RFC 3986)" : "is not valid percent-encoding");
            return;
        }
        ctx.next();
    }

    private void failed(RoutingContext ctx) {
        if (ctx.response().headWritten() || !EDGE_STATUSES.contains(ctx.statusCode())) {
            ctx.next();
            return;
        }
        int status = ctx.statusCode();
        switch (status) {
            case 413 -> tooLarge(ctx);
            case 414 -> uriTooLong(ctx);
            case 431 ->
                send(
                        ctx,
                        431,
                        ProblemType.HEADERS_TOO_LARGE,
                        "Request header fields too large",
                        null,
                        "the request's headers are too large");
            default ->
                send(ctx, 400, ProblemType.INVALID_REQUEST, "Bad request", null, "the request could not be read");
        }
    }

    /**
     * The check Quarkus makes before any route unless {@code vertx.disableURIValidation} is set, where it answers a
     * bare 400. Deployments set it (the Lambda's {@code JAVA_TOOL_OPTIONS}, the local runner's JVM) so that the
     * check is made here instead, answered with a problem naming the parameter.
     */
    private static boolean validUri(String uri) {
        try {
            new URI(uri);
            return true;
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** A Content-Length that is not a number counts as too large: it cannot be honoured either way. */
    private static long declaredLength(String length) {
        try {
            return Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /** The (decoded) name of the first parameter whose name or value has a stray {@code %}; "query" if unnamed. */
    static String badlyEncodedParameter(String query) {
        for (String pair : query.split("&", -1)) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            if (!validlyEncoded(name)) {
                return "query";
            }
            if (!validlyEncoded(value)) {
                return URLDecoder.decode(name, StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    private static boolean validlyEncoded(String s) {
        for (int i = s.indexOf('%'); i >= 0; i = s.indexOf('%', i + 1)) {
            if (i + 2 >= s.length()
                    || Character.digit(s.charAt(i + 1), 16) < 0
                    || Character.digit(s.charAt(i + 2), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    private void tooLarge(RoutingContext ctx) {
        send(
                ctx,
                413,
                ProblemType.TOO_LARGE,
                "Content too large",
                "body",
                "must be at most " + maxBody.map(MemorySize::asLongValue).orElse(-1L) + " bytes");
    }

    private void uriTooLong(RoutingContext ctx) {
        send(
                ctx,
                414,
                ProblemType.URI_TOO_LONG,
                "URI too long",
                null,
                "the request's URI is longer than " + MAX_URI_LENGTH + " characters");
    }

    private void send(RoutingContext ctx, int status, ProblemType type, String title, String field, String message) {
        String detail = field == null ? message : field + ": " + message;
        Problem p = new Problem(
                type, title, status, detail, field, field == null ? null : List.of(new FieldError(field, message)));
        String body;
        try {
            body = json.writeValueAsString(p);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a problem could not be written as JSON", e);
        }
        // Spelled as JAX-RS spells it: the Lambda adapter looks the response's type up by this exact name.
        ctx.response()
                .setStatusCode(status)
                .putHeader("Content-Type", Problem.MEDIA_TYPE)
                .end(body);
    }
}
