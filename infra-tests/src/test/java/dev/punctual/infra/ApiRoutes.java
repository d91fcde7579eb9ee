package dev.punctual.infra;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The HTTP routes the api module serves: those of its JAX-RS resources ("POST /v1/jobs", …), read from their
 * annotations, and the one it serves outside JAX-RS, its OpenAPI document, at the path its configuration gives.
 */
final class ApiRoutes {
    /** Where the api module sets the document's path (a Quarkus build-time property). */
    static final String OPENAPI_PATH = "quarkus.smallrye-openapi.path";

    private static final Map<Class<? extends Annotation>, String> VERBS = Map.of(
            GET.class, "GET", POST.class, "POST", PUT.class, "PUT", DELETE.class, "DELETE", PATCH.class, "PATCH");

    private ApiRoutes() {}

    static Set<String> routes() throws IOException, URISyntaxException, ClassNotFoundException {
        Set<String> out = new TreeSet<>();
        for (Class<?> c : resourceClasses()) {
            String base = c.getAnnotation(Path.class).value();
            for (Method m : c.getDeclaredMethods()) {
                for (var verb : VERBS.entrySet()) {
                    if (m.isAnnotationPresent(verb.getKey())) {
                        Path sub = m.getAnnotation(Path.class);
                        out.add(verb.getValue() + " " + join(base, sub == null ? "" : sub.value()));
                    }
                }
            }
        }
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
    static List<Class<?>> resourceClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        var root = Paths.get(dev.punctual.api.JobResource.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        List<Class<?>> out = new ArrayList<>();
        try (var fs = Files.isDirectory(root) ? null : java.nio.file.FileSystems.newFileSystem(root)) {
            var base = fs == null ? root : fs.getPath("/");
            try (var walk = Files.walk(base)) {
                for (var p : walk.filter(x -> x.toString().endsWith(".class")).toList()) {
                    String name =
                            base.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
                    if (name.startsWith("dev.punctual.api.") && !name.contains("$")) {
                        Class<?> c = Class.forName(name);
                        if (c.isAnnotationPresent(Path.class)) {
                            out.add(c);
                        }
                    }
                }
            }
        }
        return out;
    }

    private static String join(String base, String sub) {
        String path = ("/" + base + "/" + sub).replaceAll("/+", "/");
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
