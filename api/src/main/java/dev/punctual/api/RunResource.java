package dev.punctual.api;

import dev.punctual.core.Punctual;
import dev.punctual.core.service.Page;
import dev.punctual.core.service.RunView;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestQuery;

/** Runs across jobs: the dead letters. Maps HTTP to {@link dev.punctual.core.service.DeadLetterService}. */
@Tag(name = "Runs", description = "Runs across jobs")
@Path("/v1/runs")
@Produces(MediaType.APPLICATION_JSON)
public class RunResource {
    @Inject
    Punctual punctual;

    @Inject
    Tenants tenants;

    @GET
    @Operation(operationId = "listRuns")
    public Page<RunView> list(
            @RestQuery("state") String state, @RestQuery("limit") String limit, @RestQuery("cursor") String cursor) {
        return punctual.deadLetters.list(tenants.current(), state, Params.integer("limit", limit), cursor);
    }
}
