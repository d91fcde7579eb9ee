package dev.punctual.api.auth;

import dev.punctual.api.Problem;
import dev.punctual.api.ProblemType;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** 401 as problem+json. The detail says what was missing, never what a valid token would contain. */
public class AuthProblems {
    @ServerExceptionMapper
    public Response unauthenticated(UnauthenticatedException e) {
        return Response.status(401)
                .type(Problem.MEDIA_TYPE)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                .entity(new Problem(ProblemType.UNAUTHENTICATED, "Unauthenticated", 401, e.getMessage(), null, null))
                .build();
    }
}
