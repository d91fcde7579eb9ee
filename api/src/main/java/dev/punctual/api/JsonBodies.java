package dev.punctual.api;

import dev.punctual.core.error.FieldError;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Locale;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Every request body is JSON and says so: a body with another content type, or none, is a 415. JAX-RS alone would
 * read a body without a content type as JSON for a JSON-only method, and any body for the one that takes an
 * optional body ({@code trigger}, {@code pause}, {@code resume}); a request without a body passes whatever it declares.
 */
public class JsonBodies {
    static final String JSON = "application/json";

    @ServerRequestFilter
    public Response requireJson(ContainerRequestContext request) {
        if (!hasBody(request) || isJson(request.getHeaderString(HttpHeaders.CONTENT_TYPE))) {
            return null;
        }
        return unsupported();
    }

    static Response unsupported() {
        String message = "must be " + JSON + " for a request with a body";
        return ProblemMappers.problem(
                415,
                ProblemType.UNSUPPORTED_MEDIA_TYPE,
                "Unsupported media type",
                HttpHeaders.CONTENT_TYPE + ": " + message,
                HttpHeaders.CONTENT_TYPE,
                List.of(new FieldError(HttpHeaders.CONTENT_TYPE, message)));
    }

    private static boolean hasBody(ContainerRequestContext request) {
        if (request.getHeaderString("Transfer-Encoding") != null) {
            return true;
        }
        String length = request.getHeaderString(HttpHeaders.CONTENT_LENGTH);
        try {
            return length != null && Long.parseLong(length.trim()) > 0;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    /** {@code application/json}, with parameters (a charset) or without; parsed by hand, as it may be garbage. */
    private static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semicolon = contentType.indexOf(';');
        String type = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
        return type.trim().toLowerCase(Locale.ROOT).equals(JSON);
    }
}
