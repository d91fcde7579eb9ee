package dev.punctual.infra;

import dev.punctual.api.ResourceRoutes;
import java.io.IOException;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The HTTP routes the api module serves: those of its JAX-RS resources ("POST /v1/jobs", …), read from their
 * annotations ({@link ResourceRoutes}), and the one it serves outside JAX-RS, its OpenAPI document, at the path its configuration gives.
 */
final class ApiRoutes {
    /** Where the api module sets the document's path (a Quarkus build-time property). */
    static final String OPENAPI_PATH = "quarkus.smallrye-openapi.path";

    private ApiRoutes() {}

    static Set<String> routes() throws IOException, ClassNotFoundException {
        Set<String> out = new TreeSet<>();
        ResourceRoutes.all().forEach(r -> out.add(r.key()));
        return out;
    }

    /** {@code GET <path>} of the OpenAPI document, as the api module's microprofile-config.properties sets it. */
    static String documentRoute() throws IOException {
        Set<String> paths = new TreeSet<>();
        var configs = ApiRoutes.class.getClassLoader().getResources("META-INF/microprofile-config.properties");
        for (var url : java.util.Collections.list(configs)) {
            Properties p = new Properties();
            try (var in = url.openStream()) {
                p.load(in);
            }
            if (p.getProperty(OPENAPI_PATH) != null) {
                paths.add(p.getProperty(OPENAPI_PATH));
            }
        }
        if (paths.size() != 1) {
            throw new IllegalStateException("expected the api module to set " + OPENAPI_PATH + " once: " + paths);
        }
        return "GET " + paths.iterator().next();
    }

    /** Every class of the api module annotated with @Path. */
    static List<Class<?>> resourceClasses() throws IOException, ClassNotFoundException {
        return ResourceRoutes.resourceClasses();
    }
}
