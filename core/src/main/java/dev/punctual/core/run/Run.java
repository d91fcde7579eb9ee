package dev.punctual.core.run;

import java.time.Instant;

/**
 * One occurrence of a job. {@code attempt} is also the fencing token: every write by an executor is conditional on
 * the attempt it was granted, so a stale executor can never overwrite a newer attempt.
 */
public record Run(
        String jobId,
        String runId,
        String owner,
        Instant scheduledAt,
        RunState state,
        int attempt,
        int maxAttempts,
        String leaseOwner,
        Instant leaseExpiry,
        Integer exitCode,
        Instant startedAt,
        Instant finishedAt,
        String error,
        String logKey,
        Instant createdAt) {

    public static Run scheduled(String jobId, String runId, String owner, Instant scheduledAt, int maxAttempts,
                                Instant now) {
        return new Run(jobId, runId, owner, scheduledAt, RunState.SCHEDULED, 0, maxAttempts, null, null, null,
                null, null, null, null, now);
    }
}
