package dev.punctual.api.function;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import dev.punctual.api.Tenants;
import dev.punctual.api.auth.Owners;
import dev.punctual.api.auth.UnauthenticatedException;
import dev.punctual.wiring.PunctualConfig;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The tenant as API Gateway verified it. The HTTP API's authorizer has already checked the token's signature,
 * issuer, audience and expiry (or the SigV4 signature) before the Lambda is invoked; what it verified arrives in
 * the event's {@code requestContext.authorizer}, and nothing a client can set reaches that field. Headers are never
 * read for identity: a client controls them.
 *
 * <p>Mode {@code jwt} (the default) or {@code iam} fails closed: an event without the authorizer's context (a route
 * left without authorization, a direct invocation) is answered 401. Mode {@code none} serves everyone as the single
 * tenant {@value Tenants#LOCAL}, only when configured so explicitly.
 */
@ApplicationScoped
@Startup
public class GatewayTenants implements Tenants {
    private static final Logger LOG = Logger.getLogger(GatewayTenants.class);

    enum Mode {
        JWT,
        IAM,
        NONE
    }

    private final Mode mode;
    private final Optional<String> tenantClaim;
    private final boolean iamByAccount;

    @Inject
    Provider<APIGatewayV2HTTPEvent.RequestContext> requestContext;

    @Inject
    public GatewayTenants(PunctualConfig config) {
        this.tenantClaim = config.authTenantClaim();
        String m = config.authMode().orElse("jwt").trim().toUpperCase(Locale.ROOT);
        try {
            this.mode = Mode.valueOf(m);
        } catch (IllegalArgumentException e) {
            // A typo must not fall back to anything: refuse to start.
            throw new IllegalStateException("punctual.auth-mode must be jwt, iam or none, not " + m);
        }
        String iamTenant = config.authIamTenant().orElse("principal").trim();
        if (!iamTenant.equals("principal") && !iamTenant.equals("account")) {
            throw new IllegalStateException("punctual.auth-iam-tenant must be principal or account, not " + iamTenant);
        }
        this.iamByAccount = iamTenant.equals("account");
        if (mode == Mode.NONE) {
            LOG.warn("punctual.auth-mode=none: every caller is the single tenant '" + LOCAL
                    + "'; anyone who can reach this API can upload and run binaries and read every job");
        }
    }

    @Override
    public String current() {
        if (mode == Mode.NONE) {
            return LOCAL;
        }
        APIGatewayV2HTTPEvent.RequestContext ctx = requestContext.get();
        APIGatewayV2HTTPEvent.RequestContext.Authorizer authorizer = ctx == null ? null : ctx.getAuthorizer();
        if (mode == Mode.JWT) {
            Map<String, String> claims = authorizer == null || authorizer.getJwt() == null
                    ? null
                    : authorizer.getJwt().getClaims();
            return Owners.fromJwtClaims(claims, tenantClaim);
        }
        APIGatewayV2HTTPEvent.RequestContext.IAM iam = authorizer == null ? null : authorizer.getIam();
        if (iam == null) {
            throw new UnauthenticatedException("the request is not signed by an IAM principal (SigV4)");
        }
        return Owners.fromIam(iam.getUserArn(), iam.getAccountId(), iamByAccount);
    }
}
