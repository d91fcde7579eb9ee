package dev.punctual.core.job;

import dev.punctual.core.exec.RunLimits;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.schedule.ScheduleSpec;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A job: its definition, its owner (tenant), its state and version, and the one pending (SCHEDULED) run of its
 * schedule, if any; {@code pausedAt} while it is PAUSED (when {@code nextRunAt} is still the due time of the pending
 * run the pause cancelled); {@code firing}: jitter, catch-up, overlap and max run age; {@code activeRunId}: the run
 * most recently claimed under {@code overlap: forbid|queue}, which the next claim checks is not still running. {@code binarySha256} is copied from the binary so executors need not read the binaries table.
 * {@code secretNames}: the names of the job's secret variables; their values are kept apart
 * ({@link JobRepository#secrets}) and never leave the storage except into the binary's environment.
 * {@code limits}: what a run may use, as the job asked ({@link RunLimits#NONE} when it named none).
 */
public record Job(
        String id,
        String owner,
        String name,
        String binaryId,
        String binarySha256,
        List<String> args,
        Map<String, String> env,
        ScheduleSpec schedule,
        int timeoutSeconds,
        int maxAttempts,
        JobState state,
        long version,
        Instant createdAt,
        Instant updatedAt,
        String pendingRunId,
        Instant nextRunAt,
        Instant pausedAt,
        List<Integer> nonRetryableExitCodes,
        FiringPolicy firing,
        String activeRunId,
        List<String> secretNames,
        RunLimits limits) {

    public Job {
        limits = limits == null ? RunLimits.NONE : limits;
        nonRetryableExitCodes = nonRetryableExitCodes == null ? List.of() : List.copyOf(nonRetryableExitCodes);
        firing = firing == null ? FiringPolicy.DEFAULT : firing;
        secretNames = secretNames == null ? List.of() : List.copyOf(secretNames);
    }

    /** A job without limits of its own. */
    public Job(
            String id,
            String owner,
            String name,
            String binaryId,
            String binarySha256,
            List<String> args,
            Map<String, String> env,
            ScheduleSpec schedule,
            int timeoutSeconds,
            int maxAttempts,
            JobState state,
            long version,
            Instant createdAt,
            Instant updatedAt,
            String pendingRunId,
            Instant nextRunAt,
            Instant pausedAt,
            List<Integer> nonRetryableExitCodes,
            FiringPolicy firing,
            String activeRunId,
            List<String> secretNames) {
        this(
                id,
                owner,
                name,
                binaryId,
                binarySha256,
                args,
                env,
                schedule,
                timeoutSeconds,
                maxAttempts,
                state,
                version,
                createdAt,
                updatedAt,
                pendingRunId,
                nextRunAt,
                pausedAt,
                nonRetryableExitCodes,
                firing,
                activeRunId,
                secretNames,
                null);
    }

    /** A job without secrets. */
    public Job(
            String id,
            String owner,
            String name,
            String binaryId,
            String binarySha256,
            List<String> args,
            Map<String, String> env,
            ScheduleSpec schedule,
            int timeoutSeconds,
            int maxAttempts,
            JobState state,
            long version,
            Instant createdAt,
            Instant updatedAt,
            String pendingRunId,
            Instant nextRunAt,
            Instant pausedAt,
            List<Integer> nonRetryableExitCodes,
            FiringPolicy firing,
            String activeRunId) {
        this(
                id,
                owner,
                name,
                binaryId,
                binarySha256,
                args,
                env,
                schedule,
                timeoutSeconds,
                maxAttempts,
                state,
                version,
                createdAt,
                updatedAt,
                pendingRunId,
                nextRunAt,
                pausedAt,
                nonRetryableExitCodes,
                firing,
                activeRunId,
                List.of());
    }

    /** A job no run of which has been claimed under an overlap policy yet. */
    public Job(
            String id,
            String owner,
            String name,
            String binaryId,
            String binarySha256,
            List<String> args,
            Map<String, String> env,
            ScheduleSpec schedule,
            int timeoutSeconds,
            int maxAttempts,
            JobState state,
            long version,
            Instant createdAt,
            Instant updatedAt,
            String pendingRunId,
            Instant nextRunAt,
            Instant pausedAt,
            List<Integer> nonRetryableExitCodes,
            FiringPolicy firing) {
        this(
                id,
                owner,
                name,
                binaryId,
                binarySha256,
                args,
                env,
                schedule,
                timeoutSeconds,
                maxAttempts,
                state,
                version,
                createdAt,
                updatedAt,
                pendingRunId,
                nextRunAt,
                pausedAt,
                nonRetryableExitCodes,
                firing,
                null);
    }

    /** A job with the default firing policy. */
    public Job(
            String id,
            String owner,
            String name,
            String binaryId,
            String binarySha256,
            List<String> args,
            Map<String, String> env,
            ScheduleSpec schedule,
            int timeoutSeconds,
            int maxAttempts,
            JobState state,
            long version,
            Instant createdAt,
            Instant updatedAt,
            String pendingRunId,
            Instant nextRunAt,
            Instant pausedAt,
            List<Integer> nonRetryableExitCodes) {
        this(
                id,
                owner,
                name,
                binaryId,
                binarySha256,
                args,
                env,
                schedule,
                timeoutSeconds,
                maxAttempts,
                state,
                version,
                createdAt,
                updatedAt,
                pendingRunId,
                nextRunAt,
                pausedAt,
                nonRetryableExitCodes,
                null);
    }

    /** A job that is not paused. */
    public Job(
            String id,
            String owner,
            String name,
            String binaryId,
            String binarySha256,
            List<String> args,
            Map<String, String> env,
            ScheduleSpec schedule,
            int timeoutSeconds,
            int maxAttempts,
            JobState state,
            long version,
            Instant createdAt,
            Instant updatedAt,
            String pendingRunId,
            Instant nextRunAt) {
        this(
                id,
                owner,
                name,
                binaryId,
                binarySha256,
                args,
                env,
                schedule,
                timeoutSeconds,
                maxAttempts,
                state,
                version,
                createdAt,
                updatedAt,
                pendingRunId,
                nextRunAt,
                null,
                List.of(),
                null);
    }
}
