package dev.punctual.api;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.OPTIONS;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexReader;

/**
 * The api module's JAX-RS resource methods, each with its route ("POST /v1/jobs"), found through the Jandex indexes
 * the modules ship (every class under {@code dev.punctual.api} annotated with {@link Path}), then read by reflection:
 * a resource added later is found without this list changing. Shared with the other modules' tests (api's test-jar):
 * api-function's OpenAPI checks and infra-tests' contract with Terraform and the docs.
 */
public final class ResourceRoutes {
    private static final Map<Class<? extends Annotation>, String> VERBS = Map.of(
            GET.class, "GET",
            POST.class, "POST",
            PUT.class, "PUT",
            DELETE.class, "DELETE",
            PATCH.class, "PATCH",
            HEAD.class, "HEAD",
            OPTIONS.class, "OPTIONS");

    /** One resource method and the route it serves. */
    public record Route(String method, String path, Method javaMethod) {
        /** {@code POST /v1/jobs}. */
        public String key() {
            return method + " " + path;
        }
    }

    private ResourceRoutes() {}

    public static List<Route> all() throws IOException, ClassNotFoundException {
        List<Route> out = new ArrayList<>();
        for (Class<?> c : resourceClasses()) {
            String base = c.getAnnotation(Path.class).value();
            for (Method m : c.getDeclaredMethods()) {
                for (var verb : VERBS.entrySet()) {
                    if (m.isAnnotationPresent(verb.getKey())) {
                        Path sub = m.getAnnotation(Path.class);
                        out.add(new Route(verb.getValue(), join(base, sub == null ? "" : sub.value()), m));
                    }
                }
            }
        }
        return out;
    }

    /** Every class of the api module annotated with {@link Path}. */
    public static List<Class<?>> resourceClasses() throws IOException, ClassNotFoundException {
        ClassLoader loader = ResourceRoutes.class.getClassLoader();
        DotName path = DotName.createSimple(Path.class.getName());
        List<Class<?>> out = new ArrayList<>();
        for (URL url : Collections.list(loader.getResources("META-INF/jandex.idx"))) {
            try (InputStream in = url.openStream()) {
                for (var a : new IndexReader(in).read().getAnnotations(path)) {
                    if (a.target().kind() == AnnotationTarget.Kind.CLASS) {
                        String name = a.target().asClass().name().toString();
                        if (name.startsWith("dev.punctual.api.")) {
                            out.add(Class.forName(name, false, loader));
                        }
                    }
                }
            }
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no JAX-RS resource found in the api module's Jandex index");
        }
        return out;
    }

    private static String join(String base, String sub) {
        String path = ("/" + base + "/" + sub).replaceAll("/+", "/");
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
