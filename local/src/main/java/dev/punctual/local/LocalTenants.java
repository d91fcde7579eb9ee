package dev.punctual.local;

import dev.punctual.api.Tenants;
import dev.punctual.api.auth.Owners;
import dev.punctual.api.auth.UnauthenticatedException;
import dev.punctual.wiring.PunctualConfig;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Provider;

/**
 * The local runner's tenant. Without {@code --auth}: the single tenant {@value Tenants#LOCAL}, as before. With it:
 * the caller's {@code Authorization: Bearer <JWT>}, verified against the runner's own key ({@link LocalAuth}),
 * and turned into an owner by the same rule as in AWS ({@link Owners}).
 */
@ApplicationScoped
public class LocalTenants implements Tenants {
    private static final String BEARER = "Bearer ";

    @Inject
    Provider<HttpServerRequest> request;

    @Inject
    PunctualConfig config;

    @Override
    public String current() {
        LocalAuth auth = LocalMain.auth;
        if (auth == null) {
            return LOCAL;
        }
        String header = request.get().getHeader("Authorization");
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            throw new UnauthenticatedException("a bearer token is required (Authorization: Bearer <JWT>); "
                    + "bin/local-token SUBJECT prints one");
        }
        try {
            return Owners.fromJwtClaims(
                    auth.verify(header.substring(BEARER.length()).trim()), config.authTenantClaim());
        } catch (LocalAuth.InvalidToken e) {
            throw new UnauthenticatedException(e.getMessage());
        }
    }
}
