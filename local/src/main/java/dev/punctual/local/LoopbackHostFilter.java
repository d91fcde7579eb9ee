package dev.punctual.local;

import dev.punctual.api.Problem;
import dev.punctual.api.ProblemType;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.HostAndPort;
import jakarta.ws.rs.core.Response;
import java.util.regex.Pattern;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The local API answers only requests addressed to a loopback name. It listens on 127.0.0.1, but a web page the
 * user visits could still reach it through DNS rebinding (a name of the attacker's that resolves to 127.0.0.1):
 * the browser then sends that name as {@code Host}, which is refused here.
 */
public class LoopbackHostFilter {
    private static final Pattern LOOPBACK = Pattern.compile("(?i)localhost|127(\\.\\d{1,3}){3}|\\[?::1]?");

    @ServerRequestFilter(preMatching = true)
    public Response checkHost(HttpServerRequest request) {
        // authority(): the Host header on HTTP/1.1, :authority on HTTP/2 (Java's client upgrades to h2c).
        HostAndPort authority = request.authority();
        if (authority != null && LOOPBACK.matcher(authority.host()).matches()) {
            return null;
        }
        return Response.status(403)
                .type(Problem.MEDIA_TYPE)
                .entity(new Problem(
                        ProblemType.HOST_NOT_ALLOWED,
                        "Forbidden",
                        403,
                        "the local API answers only requests to localhost, 127.0.0.1 or [::1]",
                        "Host",
                        null))
                .build();
    }
}
