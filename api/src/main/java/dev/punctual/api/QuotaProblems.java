package dev.punctual.api;

import dev.punctual.core.error.QuotaExceededException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** A tenant over a quota: 429 problem+json naming the quota, with {@code Retry-After}. Nothing was written. */
public class QuotaProblems {
    @ServerExceptionMapper
    public Response quota(QuotaExceededException e) {
        return Response.status(429)
                .type(Problem.MEDIA_TYPE)
                .header("Retry-After", Math.max(1, e.retryAfterSeconds()))
                .entity(new Problem(
                        ProblemType.QUOTA_EXCEEDED, "Too many requests", 429, e.getMessage(), e.quota(), null))
                .build();
    }
}
