package dev.punctual.api;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** Core's JSON records live outside this module's index of REST types: register them for native images. */
@RegisterForReflection(
        targets = {
            dev.punctual.core.service.JobRequest.class,
            dev.punctual.core.service.JobView.class,
            dev.punctual.core.service.JobView.WebhookView.class,
            dev.punctual.core.service.WebhookRequest.class,
            dev.punctual.core.service.ExpectSpec.class,
            dev.punctual.core.service.JobBatch.class,
            dev.punctual.core.service.JobBatch.Request.class,
            dev.punctual.core.service.RunView.class,
            dev.punctual.core.service.BinaryRequest.class,
            dev.punctual.core.service.BinaryView.class,
            dev.punctual.core.service.Page.class,
            dev.punctual.core.error.FieldError.class,
            dev.punctual.core.schedule.ScheduleSpec.class,
            dev.punctual.core.schedule.DateSpec.class,
            dev.punctual.core.service.PreviewRequest.class,
            dev.punctual.core.service.SchedulePreview.class,
            dev.punctual.core.service.PreviewOccurrence.class,
            dev.punctual.core.service.ResumeRequest.class,
            dev.punctual.core.service.PauseRequest.class,
            dev.punctual.core.service.TriggerRequest.class,
            dev.punctual.core.service.BackfillRequest.class,
            dev.punctual.core.service.BackfillView.class,
            dev.punctual.core.firing.JitterSpec.class,
            dev.punctual.core.firing.CatchUpSpec.class,
            dev.punctual.core.limits.RunLimits.class,
            Problem.class,
            ProblemType.class,
            // KnownQueryParams reads each endpoint's @RestQuery annotations.
            JobResource.class,
            RunResource.class,
            BinaryResource.class,
            ScheduleResource.class
        })
public class ReflectionConfig {}
