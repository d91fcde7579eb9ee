package dev.punctual.core.notify;

import dev.punctual.core.job.Webhook;
import java.time.Instant;

/**
 * Something published about a job: an event on the bus (its detail type and detail) and, when the job's webhook asks
 * for it, a post. A run's outcome ({@link RunNotice}) or a job overdue ({@link JobOverdue}).
 */
public sealed interface Notice permits RunNotice, JobOverdue {
    /** Unique per happening: a consumer that sees it twice (delivery is at least once) may drop the second. */
    String id();

    String jobId();

    /** When it happened (the event's time). */
    Instant at();

    /** The event's detail type on the bus. */
    String detailType();

    /** The event's detail, also the webhook's body: one flat JSON object. */
    String detailJson();

    /** The job's webhook, when it asks for this notice (null: not posted). */
    Webhook webhook();
}
