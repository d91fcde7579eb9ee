package dev.punctual.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.core.service.BackfillRequest;
import dev.punctual.core.service.BackfillView;
import dev.punctual.core.service.DeadLetterService;
import dev.punctual.core.service.JobBackfill;
import dev.punctual.core.service.JobBatch;
import dev.punctual.core.service.JobDeletion;
import dev.punctual.core.service.JobLifecycle;
import dev.punctual.core.service.JobListing;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobService;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.Page;
import dev.punctual.core.service.PauseRequest;
import dev.punctual.core.service.ResumeRequest;
import dev.punctual.core.service.RunListing;
import dev.punctual.core.service.RunLogs;
import dev.punctual.core.service.RunView;
import dev.punctual.core.service.SchedulePreview;
import dev.punctual.core.service.TriggerRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.net.URI;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponseSchema;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;
import org.jboss.resteasy.reactive.RestResponse;

/** Jobs and their runs. Maps HTTP to {@link dev.punctual.core.service.JobService}; decides nothing itself. */
@Path("/v1/jobs")
@Tag(name = "Jobs", description = "Jobs, their runs and their lifecycle")
@Produces(MediaType.APPLICATION_JSON)
public class JobResource {
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String REPLAYED = "Idempotent-Replayed";

    private final JobService jobs;
    private final JobLifecycle lifecycle;
    private final JobBackfill backfills;
    private final JobDeletion deletions;
    private final DeadLetterService deadLetters;
    private final Tenants tenants;
    private final ObjectMapper json;

    JobResource(
            JobService jobs,
            JobLifecycle lifecycle,
            JobBackfill backfills,
            JobDeletion deletions,
            DeadLetterService deadLetters,
            Tenants tenants,
            ObjectMapper json) {
        this.jobs = jobs;
        this.lifecycle = lifecycle;
        this.backfills = backfills;
        this.deletions = deletions;
        this.deadLetters = deadLetters;
        this.tenants = tenants;
        this.json = json;
    }

    /**
     * With an {@code Idempotency-Key}, a repeat of the same request (same key and body, within 24 hours) answers
     * with the job the first one created, as it is now, and {@code Idempotent-Replayed: true}. With
     * {@code dryRun=true}, 200 and the job it would create (no id), validated as it would be, written nowhere.
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @APIResponseSchema(value = JobView.class, responseCode = "201", responseDescription = "The job; ETag, Location")
    @APIResponse(
            responseCode = "200",
            description = "dryRun=true: the job it would create (no id), nothing written",
            content =
                    @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = JobView.class)))
    @APIResponse(responseCode = "429")
    @Operation(operationId = "createJob")
    public RestResponse<JobView> create(
            @RestHeader(IDEMPOTENCY_KEY) String key, @RestQuery("dryRun") String dryRun, JobRequest request) {
        if (Params.flag("dryRun", dryRun)) {
            return RestResponse.ok(jobs.previewCreate(tenants.current(), request));
        }
        var outcome = jobs.create(tenants.current(), request, key);
        JobView job = outcome.value();
        return RestResponse.ResponseBuilder.<JobView>created(URI.create("/v1/jobs/" + job.id()))
                .entity(job)
                .header(HttpHeaders.ETAG, job.etag())
                .header(REPLAYED, outcome.replayed() ? "true" : null)
                .build();
    }

    /**
     * Creates up to {@value JobBatch#MAX_JOBS} jobs in one request: all of them, or, when any is invalid, none (one
     * 422 naming each bad field as {@code jobs[i].<field>}). The answer lists the jobs in the order asked for.
     * {@code Idempotency-Key} as for {@link #create}.
     */
    @POST
    @Path("batch")
    @Consumes(MediaType.APPLICATION_JSON)
    @APIResponseSchema(value = JobBatch.class, responseCode = "201", responseDescription = "The jobs, as asked for")
    @APIResponse(responseCode = "429")
    @Operation(operationId = "createJobs")
    public RestResponse<JobBatch> createAll(@RestHeader(IDEMPOTENCY_KEY) String key, JobBatch.Request request) {
        var outcome = jobs.createAll(tenants.current(), request, key);
        return RestResponse.ResponseBuilder.create(RestResponse.Status.CREATED, outcome.value())
                .header(REPLAYED, outcome.replayed() ? "true" : null)
                .build();
    }

    /**
     * Replaces the job's definition; {@code If-Match} must carry the ETag read, or {@code *} for whatever version is
     * current (428 without it, 412 if stale). With {@code dryRun=true}, the job as it would be, validated and
     * checked as it would be, written nowhere (its version unchanged).
     */
    @PUT
    @Path("{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    @APIResponseSchema(value = JobView.class, responseDescription = "The job, version + 1; ETag")
    @APIResponse(responseCode = "429")
    @Operation(operationId = "updateJob")
    public RestResponse<JobView> update(
            @RestPath String id,
            @RestHeader("If-Match") String ifMatch,
            @RestQuery("dryRun") String dryRun,
            JobRequest request) {
        if (Params.flag("dryRun", dryRun)) {
            return withEtag(jobs.previewUpdate(tenants.current(), id, ifMatch, request));
        }
        return withEtag(jobs.update(tenants.current(), id, ifMatch, request));
    }

    /** Your jobs, oldest first; {@code state}, {@code label} and {@code namePrefix} narrow them ({@link JobListing}). */
    @GET
    @Operation(operationId = "listJobs")
    public Page<JobView> list(
            @RestQuery("state") String state,
            @RestQuery("label") String label,
            @RestQuery("namePrefix") String namePrefix,
            @RestQuery("limit") String limit,
            @RestQuery("cursor") String cursor) {
        return jobs.list(
                tenants.current(), Params.integer("limit", limit), cursor, new JobListing(state, label, namePrefix));
    }

    @GET
    @Path("{id}")
    @Operation(operationId = "getJob")
    public RestResponse<JobView> get(@RestPath String id) {
        return withEtag(jobs.get(tenants.current(), id));
    }

    private static RestResponse<JobView> withEtag(JobView job) {
        return RestResponse.ResponseBuilder.ok(job)
                .header(HttpHeaders.ETAG, job.etag())
                .build();
    }

    @DELETE
    @Path("{id}")
    @Operation(operationId = "deleteJob")
    public RestResponse<Void> delete(@RestPath String id) {
        deletions.delete(tenants.current(), id);
        return RestResponse.noContent();
    }

    /**
     * One extra run now, outside the schedule: 202 with the run. The body is optional ({@code {"args": [...], "env":
     * {...}, "priority": "high"}}, for this run only), read by hand as {@link #resume}'s is.
     */
    @POST
    @Path("{id}/trigger")
    @Consumes(MediaType.WILDCARD)
    @APIResponseSchema(value = RunView.class, responseCode = "202", responseDescription = "The run")
    @APIResponse(responseCode = "409")
    @APIResponse(responseCode = "429")
    @Operation(operationId = "triggerJob")
    public RestResponse<RunView> trigger(
            @RestPath String id,
            @RequestBody(
                            required = false,
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(implementation = TriggerRequest.class)))
                    String body)
            throws JsonProcessingException {
        return RestResponse.accepted(lifecycle.trigger(tenants.current(), id, optional(body, TriggerRequest.class)));
    }

    /** A run for each past occurrence in {@code [from, to]} that has none: 202 with what was created. */
    @POST
    @Path("{id}/backfill")
    @Consumes(MediaType.APPLICATION_JSON)
    @APIResponseSchema(value = BackfillView.class, responseCode = "202", responseDescription = "What was created")
    @APIResponse(responseCode = "409")
    @APIResponse(responseCode = "429")
    @Operation(operationId = "backfillJob")
    public RestResponse<BackfillView> backfill(@RestPath String id, BackfillRequest request) {
        return RestResponse.accepted(backfills.backfill(tenants.current(), id, request));
    }

    /** The body is optional ({@code {"note": "..."}}), read by hand for the reason {@link #resume} gives. */
    @POST
    @Path("{id}/pause")
    @Consumes(MediaType.WILDCARD)
    @APIResponseSchema(value = JobView.class, responseDescription = "The job, PAUSED")
    @APIResponse(responseCode = "409")
    @Operation(operationId = "pauseJob")
    public JobView pause(
            @RestPath String id,
            @RequestBody(
                            required = false,
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(implementation = PauseRequest.class)))
                    String body)
            throws JsonProcessingException {
        return lifecycle.pause(tenants.current(), id, optional(body, PauseRequest.class));
    }

    /**
     * The body is optional ({@code {"catchUp": "skip|latest|all"}}, default the job's own), so it is read here: a POST
     * without one has no content type to choose a reader by. One that has a body is JSON ({@link JsonBodies}), read
     * by the same strict ObjectMapper as every other body ({@link StrictJson}).
     */
    @POST
    @Path("{id}/resume")
    @Consumes(MediaType.WILDCARD)
    @APIResponseSchema(value = JobView.class, responseDescription = "The job, ACTIVE")
    @APIResponse(responseCode = "409")
    @Operation(operationId = "resumeJob")
    public JobView resume(
            @RestPath String id,
            @RequestBody(
                            required = false,
                            content =
                                    @Content(
                                            mediaType = MediaType.APPLICATION_JSON,
                                            schema = @Schema(implementation = ResumeRequest.class)))
                    String body)
            throws JsonProcessingException {
        return lifecycle.resume(tenants.current(), id, optional(body, ResumeRequest.class));
    }

    /** An optional body: null when there is none. */
    private <T> T optional(String body, Class<T> type) throws JsonProcessingException {
        return body == null || body.isBlank() ? null : json.readValue(body, type);
    }

    @GET
    @Path("{id}/next")
    @Operation(operationId = "getNextOccurrences")
    public SchedulePreview next(@RestPath String id, @RestQuery("count") String count) {
        return jobs.next(tenants.current(), id, Params.integer("count", count));
    }

    /**
     * The job's runs, newest first: those due by now unless {@code future=true}; {@code state} (comma-separated),
     * {@code from} and {@code to} (instants, inclusive) narrow them ({@link RunListing}).
     */
    @GET
    @Path("{id}/runs")
    @Operation(operationId = "listJobRuns")
    public Page<RunView> runs(
            @RestPath String id,
            @RestQuery("state") String state,
            @RestQuery("from") String from,
            @RestQuery("to") String to,
            @RestQuery("future") String future,
            @RestQuery("limit") String limit,
            @RestQuery("cursor") String cursor) {
        return jobs.runs(
                tenants.current(), id, Params.integer("limit", limit), cursor, new RunListing(state, from, to, future));
    }

    @GET
    @Path("{id}/runs/{runId}")
    @Operation(operationId = "getRun")
    public RunView run(@RestPath String id, @RestPath String runId) {
        return jobs.run(tenants.current(), id, runId);
    }

    @POST
    @Path("{id}/runs/{runId}/retry")
    @APIResponseSchema(value = RunView.class, responseCode = "202", responseDescription = "The run, queued again")
    @APIResponse(responseCode = "409")
    @Operation(operationId = "retryRun")
    public RestResponse<RunView> retry(@RestPath String id, @RestPath String runId) {
        return RestResponse.accepted(deadLetters.retry(tenants.current(), id, runId));
    }

    /** Where the next read of a log starts: the byte after the last one answered. */
    static final String LOG_OFFSET = "Punctual-Log-Offset";
    /** {@code true} once the attempt has ended and nothing follows the answer: following stops. */
    static final String LOG_COMPLETE = "Punctual-Log-Complete";

    /**
     * An attempt's output from byte {@code offset} on: all of it once the attempt has ended, what was shipped so far
     * while it runs. With {@code wait} (seconds, at most 20), a read of a running attempt with nothing new waits
     * for new output or its end. To follow: read again from {@code Punctual-Log-Offset} until
     * {@code Punctual-Log-Complete: true}.
     */
    @GET
    @Path("{id}/runs/{runId}/log")
    @Produces(MediaType.TEXT_PLAIN)
    @APIResponse(
            responseCode = "200",
            description = "The output from the offset on",
            content = @Content(mediaType = MediaType.TEXT_PLAIN, schema = @Schema(implementation = String.class)),
            headers = {
                @Header(
                        name = LOG_OFFSET,
                        required = true,
                        description = "where the next read starts (bytes)",
                        schema = @Schema(type = SchemaType.INTEGER)),
                @Header(
                        name = LOG_COMPLETE,
                        required = true,
                        description = "true once the attempt has ended and nothing follows",
                        schema = @Schema(type = SchemaType.BOOLEAN))
            })
    @Operation(operationId = "getRunLog")
    public RestResponse<String> log(
            @RestPath String id,
            @RestPath String runId,
            @RestQuery("attempt") String attempt,
            @RestQuery("offset") String offset,
            @RestQuery("wait") String wait) {
        RunLogs.Slice slice = jobs.log(
                tenants.current(),
                id,
                runId,
                Params.integer("attempt", attempt),
                Params.whole("offset", offset),
                Params.integer("wait", wait));
        return RestResponse.ResponseBuilder.ok(slice.text())
                .header(LOG_OFFSET, slice.nextOffset())
                .header(LOG_COMPLETE, slice.complete())
                .build();
    }
}
