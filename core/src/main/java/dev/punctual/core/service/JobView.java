package dev.punctual.core.service;

import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.schedule.ScheduleSpec;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A job as the API shows it; a paused job has no {@code nextRunAt}. */
public record JobView(String id, String name, String owner, String binaryId, List<String> args,
                      Map<String, String> env, ScheduleSpec schedule, int timeoutSeconds, int maxAttempts,
                      String state, long version, String createdAt, String updatedAt, String nextRunAt,
                      String pausedAt, List<Integer> nonRetryableExitCodes) {

    public static JobView of(Job j) {
        return new JobView(j.id(), j.name(), j.owner(), j.binaryId(), j.args(), j.env(), j.schedule(),
                j.timeoutSeconds(), j.maxAttempts(), j.state().name(), j.version(), str(j.createdAt()),
                str(j.updatedAt()), j.state() == JobState.PAUSED ? null : str(j.nextRunAt()), str(j.pausedAt()),
                j.nonRetryableExitCodes());
    }

    static String str(Instant t) {
        return t == null ? null : t.truncatedTo(java.time.temporal.ChronoUnit.MILLIS).toString();
    }
}
