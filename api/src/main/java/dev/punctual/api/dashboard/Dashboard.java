package dev.punctual.api.dashboard;

import dev.punctual.core.binary.ArtifactStore;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.net.URI;
import java.time.Duration;

/**
 * The dashboard: static files under {@value #PATH} (this module's {@code META-INF/resources/ui}), served by Quarkus
 * from the same origin as the API they call, so no CORS is needed and the bearer token stays with the one origin.
 * Here: {@code /ui} and {@code /} lead to it, and every answer under it carries a content security policy that lets
 * the page run only its own scripts and talk only to this API and to the storage its presigned uploads go to.
 */
@ApplicationScoped
public class Dashboard {
    public static final String PATH = "/ui/";
    /** Before Quarkus's static handler; after HttpEdge's checks. */
    static final int ORDER = -5;

    private final ArtifactStore store;

    Dashboard(ArtifactStore store) {
        this.store = store;
    }

    private volatile String policy;

    void install(@Observes Router router) {
        // Regexes, not paths: Vert.x's path "/ui" also matches "/ui/", which would redirect to itself.
        router.getWithRegex("/|/ui").order(ORDER).handler(Dashboard::toDashboard);
        router.route("/ui/*").order(ORDER).handler(this::headers);
    }

    private static void toDashboard(RoutingContext ctx) {
        ctx.response().setStatusCode(302).putHeader(HttpHeaders.LOCATION, PATH).end();
    }

    private void headers(RoutingContext ctx) {
        ctx.response()
                .putHeader("Content-Security-Policy", policy())
                .putHeader("X-Content-Type-Options", "nosniff")
                .putHeader("Referrer-Policy", "no-referrer")
                // Revalidated on each load (Last-Modified), so a deployed change is seen at once.
                .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache");
        ctx.next();
    }

    /** Built once: the storage origin is that of any presigned upload (presigning is local, it calls nothing). */
    String policy() {
        String p = policy;
        if (p == null) {
            p = policy(uploadOrigin());
            policy = p;
        }
        return p;
    }

    static String policy(String uploadOrigin) {
        return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' "
                + uploadOrigin + "; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
    }

    private String uploadOrigin() {
        URI u = URI.create(store.presignUpload("dashboard", "0".repeat(64), 1, Duration.ofMinutes(1))
                .url());
        return u.getScheme() + "://" + u.getRawAuthority();
    }
}
