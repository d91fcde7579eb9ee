package dev.punctual.core.service;

import dev.punctual.core.schedule.ScheduleSpec;
import java.util.List;
import java.util.Map;

/**
 * The body of {@code POST /v1/jobs}, as received; {@link JobService} validates it. {@code nonRetryableExitCodes}:
 * exit codes that mean "retrying cannot help" (a usage error, say): the run is DEAD at once.
 */
public record JobRequest(String name, String binaryId, List<String> args, Map<String, String> env,
                         ScheduleSpec schedule, Integer timeoutSeconds, Integer maxAttempts,
                         List<Integer> nonRetryableExitCodes) {

    /** Without non-retryable exit codes: every failure is retried up to {@code maxAttempts}. */
    public JobRequest(String name, String binaryId, List<String> args, Map<String, String> env,
                      ScheduleSpec schedule, Integer timeoutSeconds, Integer maxAttempts) {
        this(name, binaryId, args, env, schedule, timeoutSeconds, maxAttempts, null);
    }
}
