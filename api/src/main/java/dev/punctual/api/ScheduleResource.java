package dev.punctual.api;

import dev.punctual.core.service.JobService;
import dev.punctual.core.service.PreviewRequest;
import dev.punctual.core.service.SchedulePreview;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Schedules on their own, before any job has them: {@code POST /v1/schedules/preview}. */
@Tag(name = "Schedules", description = "Schedules on their own")
@Path("/v1/schedules")
@Produces(MediaType.APPLICATION_JSON)
public class ScheduleResource {
    private final JobService jobs;

    ScheduleResource(JobService jobs) {
        this.jobs = jobs;
    }

    @POST
    @Path("preview")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "previewSchedule")
    public SchedulePreview preview(PreviewRequest request) {
        return jobs.preview(request);
    }
}
