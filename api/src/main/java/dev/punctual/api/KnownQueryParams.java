package dev.punctual.api;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Response;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.resteasy.reactive.RestQuery;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * A query parameter the matched endpoint does not take is a 400 naming it, as an unknown body field is: a
 * misspelt {@code limt=5} or {@code stat=DEAD} would otherwise be ignored and answer something else than asked. The
 * names an endpoint takes are its {@link RestQuery} parameters, each named explicitly (read from the annotations:
 * a native image keeps no parameter names).
 */
public class KnownQueryParams {
    private final Map<Method, Set<String>> byMethod = new ConcurrentHashMap<>();

    @ServerRequestFilter
    public Response rejectUnknown(ContainerRequestContext request, ResourceInfo resource) {
        Set<String> asked;
        try {
            asked = request.getUriInfo().getQueryParameters().keySet();
        } catch (IllegalArgumentException badEncoding) {
            // A broken escape (a value ending in "%") is the endpoint's to name, as it did before: read the names
            // as sent.
            asked = request.getUriInfo().getQueryParameters(false).keySet();
        }
        if (asked.isEmpty()) {
            return null;
        }
        Set<String> known = byMethod.computeIfAbsent(resource.getResourceMethod(), KnownQueryParams::names);
        List<FieldError> unknown = new ArrayList<>();
        for (String name : new TreeSet<>(asked)) {
            if (!known.contains(name)) {
                unknown.add(new FieldError(
                        name,
                        known.isEmpty()
                                ? "unknown query parameter: this endpoint takes none"
                                : "unknown query parameter: this endpoint takes " + String.join(", ", known)));
            }
        }
        if (unknown.isEmpty()) {
            return null;
        }
        return ProblemMappers.problem(new ValidationException(Rejection.MALFORMED, unknown));
    }

    /** The endpoint's query parameters, in the order it declares them. */
    static Set<String> names(Method method) {
        Set<String> out = new LinkedHashSet<>();
        for (Annotation[] annotations : method.getParameterAnnotations()) {
            for (Annotation a : annotations) {
                if (a instanceof RestQuery q) {
                    if (q.value().isEmpty()) {
                        throw new IllegalStateException(method + ": a @RestQuery must name its parameter");
                    }
                    out.add(q.value());
                }
            }
        }
        return Collections.unmodifiableSet(out);
    }
}
