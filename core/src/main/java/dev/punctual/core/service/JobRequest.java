package dev.punctual.core.service;

import dev.punctual.core.firing.CatchUpSpec;
import dev.punctual.core.firing.JitterSpec;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.schedule.ScheduleSpec;
import java.util.List;
import java.util.Map;

/**
 * The body of {@code POST /v1/jobs} and {@code PUT /v1/jobs/{id}}, as received; {@link JobService} validates it.
 * {@code nonRetryableExitCodes}: exit codes that mean "retrying cannot help" (a usage error, say): the run is DEAD
 * at once. {@code jitter}, {@code catchUp}, {@code overlap}, {@code maxRunAge}: the firing policy
 * ({@link dev.punctual.core.firing.FiringPolicy}); absent fields take their defaults. {@code secrets}: variables
 * whose values the API never returns (only their names); on {@code PUT}, absent means "keep the current ones".
 * {@code limits}: what one run may use (absent fields: this deployment's maxima).
 */
public record JobRequest(
        String name,
        String binaryId,
        List<String> args,
        Map<String, String> env,
        ScheduleSpec schedule,
        Integer timeoutSeconds,
        Integer maxAttempts,
        List<Integer> nonRetryableExitCodes,
        JitterSpec jitter,
        CatchUpSpec catchUp,
        String overlap,
        String maxRunAge,
        Map<String, String> secrets,
        RunLimits limits) {

    /** Without limits of its own. */
    public JobRequest(
            String name,
            String binaryId,
            List<String> args,
            Map<String, String> env,
            ScheduleSpec schedule,
            Integer timeoutSeconds,
            Integer maxAttempts,
            List<Integer> nonRetryableExitCodes,
            JitterSpec jitter,
            CatchUpSpec catchUp,
            String overlap,
            String maxRunAge,
            Map<String, String> secrets) {
        this(
                name,
                binaryId,
                args,
                env,
                schedule,
                timeoutSeconds,
                maxAttempts,
                nonRetryableExitCodes,
                jitter,
                catchUp,
                overlap,
                maxRunAge,
                secrets,
                null);
    }

    /** Without secrets. */
    public JobRequest(
            String name,
            String binaryId,
            List<String> args,
            Map<String, String> env,
            ScheduleSpec schedule,
            Integer timeoutSeconds,
            Integer maxAttempts,
            List<Integer> nonRetryableExitCodes,
            JitterSpec jitter,
            CatchUpSpec catchUp,
            String overlap,
            String maxRunAge) {
        this(
                name,
                binaryId,
                args,
                env,
                schedule,
                timeoutSeconds,
                maxAttempts,
                nonRetryableExitCodes,
                jitter,
                catchUp,
                overlap,
                maxRunAge,
                null);
    }

    /** Without non-retryable exit codes: every failure is retried up to {@code maxAttempts}. */
    public JobRequest(
            String name,
            String binaryId,
            List<String> args,
            Map<String, String> env,
            ScheduleSpec schedule,
            Integer timeoutSeconds,
            Integer maxAttempts) {
        this(name, binaryId, args, env, schedule, timeoutSeconds, maxAttempts, null);
    }

    /** With the default firing policy. */
    public JobRequest(
            String name,
            String binaryId,
            List<String> args,
            Map<String, String> env,
            ScheduleSpec schedule,
            Integer timeoutSeconds,
            Integer maxAttempts,
            List<Integer> nonRetryableExitCodes) {
        this(
                name,
                binaryId,
                args,
                env,
                schedule,
                timeoutSeconds,
                maxAttempts,
                nonRetryableExitCodes,
                null,
                null,
                null,
                null,
                null);
    }
}
