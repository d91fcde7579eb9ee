package dev.punctual.api;

import dev.punctual.core.Punctual;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.Page;
import dev.punctual.core.service.RunView;
import dev.punctual.core.service.SchedulePreview;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.net.URI;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;
import org.jboss.resteasy.reactive.RestResponse;

/** Jobs and their runs. Maps HTTP to {@link dev.punctual.core.service.JobService}; decides nothing itself. */
@Path("/v1/jobs")
@Produces(MediaType.APPLICATION_JSON)
public class JobResource {
    @Inject
    Punctual punctual;
    @Inject
    Tenants tenants;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public RestResponse<JobView> create(JobRequest request) {
        JobView job = punctual.jobService.create(tenants.current(), request);
        return RestResponse.ResponseBuilder.<JobView>created(URI.create("/v1/jobs/" + job.id())).entity(job).build();
    }

    @GET
    public Page<JobView> list(@RestQuery String limit, @RestQuery String cursor) {
        return punctual.jobService.list(tenants.current(), Params.integer("limit", limit), cursor);
    }

    @GET
    @Path("{id}")
    public JobView get(@RestPath String id) {
        return punctual.jobService.get(tenants.current(), id);
    }

    @DELETE
    @Path("{id}")
    public RestResponse<Void> delete(@RestPath String id) {
        punctual.jobService.delete(tenants.current(), id);
        return RestResponse.noContent();
    }

    @GET
    @Path("{id}/next")
    public SchedulePreview next(@RestPath String id, @RestQuery String count) {
        return punctual.jobService.next(tenants.current(), id, Params.integer("count", count));
    }

    @GET
    @Path("{id}/runs")
    public Page<RunView> runs(@RestPath String id, @RestQuery String limit, @RestQuery String cursor) {
        return punctual.jobService.runs(tenants.current(), id, Params.integer("limit", limit), cursor);
    }

    @GET
    @Path("{id}/runs/{runId}/log")
    @Produces(MediaType.TEXT_PLAIN)
    public String log(@RestPath String id, @RestPath String runId) {
        return punctual.jobService.log(tenants.current(), id, runId);
    }
}
