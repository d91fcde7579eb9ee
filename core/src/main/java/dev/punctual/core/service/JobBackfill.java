package dev.punctual.core.service;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.QuotaExceededException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.limits.Quotas;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Overrides;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.tenant.UsageRepository;
import dev.punctual.core.time.Instants;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A job's past occurrences run after the fact ({@code POST /v1/jobs/{id}/backfill}): each occurrence of a range that has no run yet gets one, written while the job may
 * run and dispatched as a scheduled run is.
 */
public final class JobBackfill {
    /** The most occurrences one backfill may create. */
    static final int MAX_BACKFILL = 1000;
    /** Backfilled runs dispatched by the request itself (the oldest); the sweeper sends the rest within a minute. */
    static final int BACKFILL_DISPATCH_NOW = 100;

    private final JobRepository jobs;
    private final RunRepository runs;
    private final UsageRepository usage;
    private final Transactions tx;
    private final Schedules schedules;
    private final OwnedJobs ownedJobs;
    private final JobStarts starts;
    private final Quotas quotas;
    private final Clock clock;

    public JobBackfill(
            JobRepository jobs,
            RunRepository runs,
            UsageRepository usage,
            Transactions tx,
            Schedules schedules,
            OwnedJobs ownedJobs,
            JobStarts starts,
            Quotas quotas,
            Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.usage = usage;
        this.tx = tx;
        this.schedules = schedules;
        this.ownedJobs = ownedJobs;
        this.starts = starts;
        this.quotas = quotas;
        this.clock = clock;
    }

    /**
     * Creates a run for each occurrence of the job's schedule in {@code [from, to]} that has none yet, through the
     * same path as scheduled runs: SCHEDULED, then dispatched (the oldest {@value #BACKFILL_DISPATCH_NOW} here, the
     * rest by the next sweep). Only the past can be backfilled ({@code to} ≤ now: future occurrences run on their
     * own), at most {@value #MAX_BACKFILL} occurrences, and only while the job may run. The runs are not the job's
     * pending run and get no jitter; they obey its overlap policy like any other run. Idempotent: an occurrence
     * that already has a run (it ran, or an earlier backfill made it) is counted, not duplicated.
     */
    public BackfillView backfill(String owner, String jobId, BackfillRequest req) {
        if (req == null) {
            throw ValidationException.of("body", "is required");
        }
        Instant now = clock.instant();
        List<FieldError> errors = new ArrayList<>();
        Instant from = instant(req.from(), "from", errors);
        Instant to = instant(req.to(), "to", errors);
        if (from != null && to != null && to.isBefore(from)) {
            errors.add(new FieldError("to", "must not be before from"));
        }
        if (to != null && to.isAfter(now)) {
            errors.add(new FieldError(
                    "to", "must not be in the future (it is " + now + "): future occurrences run on schedule"));
        }
        Priority lane = Priority.parse(req.priority());
        if (req.priority() != null && lane == null) {
            errors.add(new FieldError("priority", Priority.MUST_BE));
        }
        Job job = ownedJobs.owned(owner, jobId);
        JobLifecycle.refuseUnlessRunnable(job, "backfill");
        Schedule schedule = schedules.parse(job.schedule(), job.createdAt(), "schedule");
        if (schedule instanceof Schedule.Now || schedule instanceof Schedule.Once) {
            errors.add(new FieldError(
                    "schedule",
                    "a '" + job.schedule().type()
                            + "' job has no recurring occurrences to backfill: use POST /v1/jobs/{id}/trigger"));
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(Rejection.INVALID, errors);
        }
        List<Instant> occurrences = new ArrayList<>();
        for (Optional<Instant> t = schedule.first(from);
                t.isPresent() && !t.get().isAfter(to);
                t = schedule.next(t.get())) {
            if (occurrences.size() == MAX_BACKFILL) {
                throw new ValidationException(
                        Rejection.INVALID,
                        List.of(new FieldError(
                                "to",
                                "the range holds more than " + MAX_BACKFILL + " occurrences: backfill it in parts")));
            }
            occurrences.add(t.get());
        }
        List<Run> created = new ArrayList<>();
        for (Instant at : occurrences) {
            Run run = Run.scheduled(jobId, RunIds.forOccurrence(at), owner, at, job.maxAttempts(), now)
                    .withOverrides(Overrides.lane(lane));
            if (runs.get(jobId, run.runId()).isEmpty()) {
                created.add(run);
            }
        }
        int perDay = quotas.backfillPerDay();
        if (!created.isEmpty() && !usage.countBackfill(owner, now, created.size(), perDay)) {
            throw new QuotaExceededException(
                    "backfillPerDay",
                    "backfilling " + created.size() + " occurrences would pass this tenant's quota of " + perDay
                            + " per UTC day",
                    86_400 - now.getEpochSecond() % 86_400);
        }
        // In chunks of one transaction each, with the job's runnable check, so a delete or pause racing with the
        // backfill stops it; a chunk that loses a race with another backfill is re-checked run by run.
        List<Run> written = new ArrayList<>();
        for (int i = 0; i < created.size(); i += JobLifecycle.MAX_TRANSACTION_ITEMS - 1) {
            List<Run> chunk = created.subList(i, Math.min(created.size(), i + JobLifecycle.MAX_TRANSACTION_ITEMS - 1));
            List<Transactions.Write> items = new ArrayList<>();
            items.add(jobs.conditionRunnable(jobId));
            chunk.forEach(r -> items.add(runs.create(Change.of(Transition.SCHEDULE, r, now))));
            Transactions.Outcome o = tx.write(items);
            if (o.won()) {
                written.addAll(chunk);
                continue;
            }
            if (o.failed(0)) {
                JobLifecycle.refuseUnlessRunnable(ownedJobs.owned(owner, jobId), "backfill");
            }
            for (Run r : chunk) {
                if (tx.write(List.of(
                                jobs.conditionRunnable(jobId), runs.create(Change.of(Transition.SCHEDULE, r, now))))
                        .won()) {
                    written.add(r);
                }
            }
        }
        starts.dispatchSoon(written.subList(0, Math.min(written.size(), BACKFILL_DISPATCH_NOW)), now);
        return new BackfillView(
                jobId,
                from.toString(),
                to.toString(),
                occurrences.size(),
                written.stream().map(Run::runId).toList(),
                occurrences.size() - written.size());
    }

    private static Instant instant(String text, String field, List<FieldError> errors) {
        if (text == null) {
            errors.add(new FieldError(field, "is required (an ISO-8601 instant such as 2030-01-01T09:00:00Z)"));
            return null;
        }
        Instant t = Instants.parseOrNull(text);
        if (t == null) {
            errors.add(new FieldError(field, "is not an ISO-8601 instant with an offset (e.g. 2030-01-01T09:00:00Z)"));
        } else if (!Instants.supported(t)) {
            errors.add(new FieldError(field, Instants.OUT_OF_RANGE));
            return null;
        }
        return t;
    }
}
