package dev.punctual.api;

import dev.punctual.core.Punctual;
import dev.punctual.core.service.PreviewRequest;
import dev.punctual.core.service.SchedulePreview;
import jakarta.inject.Inject;
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
    @Inject
    Punctual punctual;

    @POST
    @Path("preview")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "previewSchedule")
    public SchedulePreview preview(PreviewRequest request) {
        return punctual.jobService.preview(request);
    }
}
