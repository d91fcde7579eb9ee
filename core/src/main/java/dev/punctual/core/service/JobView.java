package dev.punctual.core.service;

import dev.punctual.core.firing.CatchUpSpec;
import dev.punctual.core.firing.JitterSpec;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.schedule.ScheduleSpec;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A job as the API shows it, firing policy defaults filled in. {@code nextRunAt}: when it next fires (its schedule's
 * next occurrence from now, {@code OwnedJobs#nextFire}); a job that is not ACTIVE has none. {@code version}
 * is also the job's ETag: {@code PUT} must send it back in {@code If-Match}. {@code limits}: only those the job
 * named (the rest are the executors' maxima), absent when it named none. {@code labels}: always present ({@code {}}
 * when none); {@code pauseNote}: why it was paused, while it is. {@code webhook}: where its outcomes are posted.
 * {@code expect}: the successes it is watched for. {@code maxConcurrency}: how many of its runs may run at once (1
 * under {@code overlap: forbid|queue} unless it named more; 1 under {@code allow}, where every run starts).
 * {@code priority}: the lane its runs are sent to (high, normal, low).
 */
public record JobView(
        String id,
        String name,
        String owner,
        String binaryId,
        List<String> args,
        Map<String, String> env,
        ScheduleSpec schedule,
        int timeoutSeconds,
        int maxAttempts,
        String state,
        long version,
        String createdAt,
        String updatedAt,
        String nextRunAt,
        String pausedAt,
        List<Integer> nonRetryableExitCodes,
        JitterSpec jitter,
        CatchUpSpec catchUp,
        String overlap,
        String maxRunAge,
        int maxConcurrency,
        String priority,
        List<String> secrets,
        RunLimits limits,
        Map<String, String> labels,
        String pauseNote,
        WebhookView webhook,
        ExpectSpec expect) {

    /** A job's webhook as shown: where and on which states; never its secret. */
    public record WebhookView(String url, List<String> on) {}

    /** The job, {@code nextRunAt} the due time of its pending run (the first occurrence not yet queued). */
    public static JobView of(Job j) {
        return of(j, j.state() == JobState.PAUSED ? null : j.nextRunAt());
    }

    /** The job with {@code nextRunAt} as given (its next fire time, see {@code OwnedJobs#nextFire}). */
    static JobView of(Job j, Instant nextRunAt) {
        return new JobView(
                j.id(),
                j.name(),
                j.owner(),
                j.binaryId(),
                j.args(),
                j.env(),
                j.schedule(),
                j.timeoutSeconds(),
                j.maxAttempts(),
                j.state().name(),
                j.version(),
                str(j.createdAt()),
                str(j.updatedAt()),
                str(nextRunAt),
                str(j.pausedAt()),
                j.nonRetryableExitCodes(),
                FiringChecks.jitterSpec(j.firing()),
                FiringChecks.catchUpSpec(j.firing()),
                j.firing().overlap().wire(),
                j.firing().maxRunAge().toString(),
                j.firing().maxConcurrency(),
                j.firing().priority().label(),
                j.secretNames(),
                j.limits().none() ? null : j.limits(),
                j.labels(),
                j.state() == JobState.PAUSED ? j.pauseNote() : null,
                j.webhook() == null
                        ? null
                        : new WebhookView(j.webhook().url(), j.webhook().onNames()),
                ExpectSpec.of(j.expect()));
    }

    /** The ETag of this version of the job. */
    public String etag() {
        return "\"" + version + "\"";
    }

    static String str(Instant t) {
        return t == null
                ? null
                : t.truncatedTo(java.time.temporal.ChronoUnit.MILLIS).toString();
    }
}
