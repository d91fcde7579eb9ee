package dev.punctual.api;

import dev.punctual.core.service.Page;
import dev.punctual.core.service.RunListing;
import dev.punctual.core.service.RunView;
import dev.punctual.core.service.RunsAcrossJobs;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestQuery;

/**
 * Runs across jobs: a search of the caller's runs, newest due first, and the dead letters. Maps HTTP to {@link
 * dev.punctual.core.service.RunsAcrossJobs}.
 */
@Tag(name = "Runs", description = "Runs across jobs")
@Path("/v1/runs")
@Produces(MediaType.APPLICATION_JSON)
public class RunResource {
    private final RunsAcrossJobs runs;
    private final Tenants tenants;

    RunResource(RunsAcrossJobs runs, Tenants tenants) {
        this.runs = runs;
        this.tenants = tenants;
    }

    /**
     * The caller's runs of every job, newest due first: those due by now unless {@code future=true}; {@code state}
     * (comma-separated), {@code from} and {@code to} (instants, inclusive) narrow them, as a job's listing does.
     * {@code state=DEAD} alone lists the dead letters, most recently finished first.
     */
    @GET
    @Operation(operationId = "listRuns")
    public Page<RunView> list(
            @RestQuery("state") String state,
            @RestQuery("from") String from,
            @RestQuery("to") String to,
            @RestQuery("future") String future,
            @RestQuery("limit") String limit,
            @RestQuery("cursor") String cursor) {
        return runs.list(
                tenants.current(), new RunListing(state, from, to, future), Params.integer("limit", limit), cursor);
    }
}
