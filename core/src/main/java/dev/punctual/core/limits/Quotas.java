package dev.punctual.core.limits;

/**
 * What one tenant may hold and start (OWASP API4: unrestricted resource consumption). Every limit is per owner.
 *
 * @param jobs               jobs that exist (not deleted; a completed job counts until deleted)
 * @param runsPerMinute      the tenant's scheduled start rate: the sum over its jobs of each schedule's busiest
 *                           minute ({@link SchedulePeak}), checked when a job is created or replaced, so a tenant
 *                           cannot schedule more starts per minute than this without any cost per run
 * @param triggersPerMinute  {@code POST /v1/jobs/{id}/trigger} calls per calendar minute
 * @param backfillPerDay     backfilled occurrences per UTC day
 */
public record Quotas(int jobs, int runsPerMinute, int triggersPerMinute, int backfillPerDay) {
    public static final int DEFAULT_JOBS = 10_000;
    public static final int DEFAULT_RUNS_PER_MINUTE = 10_000;
    public static final int DEFAULT_TRIGGERS_PER_MINUTE = 120;
    public static final int DEFAULT_BACKFILL_PER_DAY = 10_000;
    public static final Quotas DEFAULTS =
            new Quotas(DEFAULT_JOBS, DEFAULT_RUNS_PER_MINUTE, DEFAULT_TRIGGERS_PER_MINUTE, DEFAULT_BACKFILL_PER_DAY);

    public Quotas {
        if (jobs < 1 || runsPerMinute < 1 || triggersPerMinute < 1 || backfillPerDay < 1) {
            throw new IllegalArgumentException("every quota must be at least 1");
        }
    }
}
