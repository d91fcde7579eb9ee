package dev.punctual.core.run;

import java.time.Instant;

/**
 * One occurrence of a job: {@code occurrence} is the schedule's instant it stands for (its run id is made from it,
 * and the job's next occurrence is computed from it); {@code scheduledAt} is when it is due, the occurrence plus
 * the job's jitter. {@code queuedAt}: when the dispatcher marked it QUEUED (null: it never did, e.g. an executor
 * claimed it straight from SCHEDULED). {@code attempt} is also the fencing token: every write by an executor is conditional on
 * the attempt it was granted, so a stale executor can never overwrite a newer attempt. {@code launchedAt}: when
 * the current attempt's executor was about to start the binary (null: it never got that far). The latest
 * attempt's output is in S3 under {@code logKey}, or, when small, kept on the run itself as {@code log}.
 * {@code waiting}: why a run that is not running yet waits (its tenant at its running limit), until it is claimed.
 * {@code history}: its earlier attempts and its retries by hand ({@link RunHistory}).
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
        String log,
        Instant createdAt,
        Instant occurrence,
        Instant queuedAt,
        Instant launchedAt,
        Overrides overrides,
        String waiting,
        RunHistory history) {

    public Run {
        occurrence = occurrence == null ? scheduledAt : occurrence;
        overrides = overrides == null ? Overrides.NONE : overrides;
        history = history == null ? RunHistory.NONE : history;
    }

    /** This run with {@code overrides} of its job's command line (a triggered run's). */
    public Run withOverrides(Overrides overrides) {
        return new Run(
                jobId,
                runId,
                owner,
                scheduledAt,
                state,
                attempt,
                maxAttempts,
                leaseOwner,
                leaseExpiry,
                exitCode,
                startedAt,
                finishedAt,
                error,
                logKey,
                log,
                createdAt,
                occurrence,
                queuedAt,
                launchedAt,
                overrides,
                waiting,
                history);
    }

    public static Run scheduled(
            String jobId, String runId, String owner, Instant scheduledAt, int maxAttempts, Instant now) {
        return scheduled(jobId, runId, owner, scheduledAt, scheduledAt, maxAttempts, now);
    }

    /** A SCHEDULED run of {@code occurrence}, due at {@code dueAt} (the occurrence plus its jitter). */
    public static Run scheduled(
            String jobId, String runId, String owner, Instant occurrence, Instant dueAt, int maxAttempts, Instant now) {
        return new Run(
                jobId,
                runId,
                owner,
                dueAt,
                RunState.SCHEDULED,
                0,
                maxAttempts,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                now,
                occurrence,
                null,
                null,
                Overrides.NONE,
                null,
                RunHistory.NONE);
    }

    /** When the run became due: its due time, or its creation if it was created late (catch-up, backfill). */
    public Instant dueSince() {
        return createdAt != null && createdAt.isAfter(scheduledAt) ? createdAt : scheduledAt;
    }
}
