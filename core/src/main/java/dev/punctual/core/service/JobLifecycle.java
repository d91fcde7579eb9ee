package dev.punctual.core.service;

import dev.punctual.core.error.ConflictException;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.QuotaExceededException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.firing.FiringPolicies;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.plan.Occurrences;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Overrides;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.time.Instants;
import java.lang.System.Logger.Level;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Trigger, pause and resume. Every change is one conditional transaction that wins or loses; a lost race is read
 * again and retried (or answered with the state that won), never half-written.
 */
public final class JobLifecycle {
    private static final System.Logger LOG = System.getLogger(JobLifecycle.class.getName());
    /** At most this many missed occurrences are run by the default {@code catchUp: all} (the most recent ones). */
    public static final int MAX_CATCH_UP = CatchUp.DEFAULT_MAX_RUNS;
    /** The most occurrences one backfill may create. */
    public static final int MAX_BACKFILL = 1000;
    /** Backfilled runs dispatched by the request itself (the oldest); the sweeper sends the rest within a minute. */
    static final int BACKFILL_DISPATCH_NOW = 100;
    /** DynamoDB's limit on the items of one transaction. */
    static final int MAX_TRANSACTION_ITEMS = 100;

    private static final int RETRIES = 10;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final JobContext ctx;

    public JobLifecycle(JobContext ctx) {
        this.ctx = ctx;
    }

    /**
     * One extra run now, outside the schedule: its own id (the instant plus {@code -t} and a random suffix, so it
     * never collides with an occurrence), written only while the job may run, and dispatched at once. It is not the
     * job's pending run, which stays as it was.
     */
    public RunView trigger(String owner, String jobId) {
        return trigger(owner, jobId, null);
    }

    /** {@link #trigger(String, String)}, with the request's args and env for this run only ({@link Overrides}). */
    public RunView trigger(String owner, String jobId, TriggerRequest req) {
        Job job = ctx.owned(owner, jobId);
        refuseUnlessRunnable(job, "trigger");
        Overrides overrides = BinaryInputs.overrides(job, req);
        Instant now = ctx.clock().instant();
        int perMinute = ctx.settings().quotas().triggersPerMinute();
        if (!ctx.usage().countTrigger(owner, now, perMinute)) {
            throw new QuotaExceededException(
                    "triggersPerMinute",
                    "this tenant has triggered " + perMinute + " runs this minute, its quota",
                    60 - now.getEpochSecond() % 60);
        }
        String runId = RunIds.forOccurrence(now) + "-t"
                + HexFormat.of().toHexDigits(RANDOM.nextInt()).substring(0, 6);
        Run run =
                Run.scheduled(jobId, runId, owner, now, job.maxAttempts(), now).withOverrides(overrides);
        if (!ctx.tx()
                .write(List.of(
                        ctx.jobs().conditionRunnable(jobId),
                        ctx.runs().create(Change.of(Transition.SCHEDULE, run, now))))
                .won()) {
            // Paused or deleted meanwhile.
            refuseUnlessRunnable(ctx.owned(owner, jobId), "trigger");
            throw new ConflictException("job " + jobId + " changed during trigger; try again");
        }
        try {
            ctx.dispatcher().dispatch(List.of(run), now.plus(ctx.settings().lookahead()));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "immediate dispatch of " + jobId + "/" + runId + " failed; the sweeper sends it", e);
        }
        return RunView.of(ctx.runs().get(jobId, runId).orElse(run), job.name());
    }

    /**
     * Pauses the job: PAUSED, {@code pausedAt} recorded, and its pending SCHEDULED run cancelled ("job paused"), in
     * one transaction. Runs already queued do not start: their claim checks that the job is not PAUSED. As for a
     * delete, the answer waits for a run whose check came first and whose instant is near ({@link
     * JobContext#awaitCommittedStarts}). Pausing a paused job changes nothing, its note included.
     */
    public JobView pause(String owner, String jobId) {
        return pause(owner, jobId, null);
    }

    /** {@link #pause(String, String)}, with the request's note (null: none), shown on the job while it is paused. */
    public JobView pause(String owner, String jobId, PauseRequest req) {
        String note = req == null ? null : req.note();
        if (note != null
                && (note.length() > PauseRequest.MAX_NOTE || note.chars().anyMatch(Character::isISOControl))) {
            throw new ValidationException(
                    Rejection.INVALID,
                    List.of(new FieldError(
                            "note",
                            "must be at most " + PauseRequest.MAX_NOTE + " characters, without control characters")));
        }
        for (int i = 0; i < RETRIES; i++) {
            Job job = ctx.owned(owner, jobId);
            if (job.state() == JobState.PAUSED) {
                // Paused by a request still waiting for a run (below): this one answers no sooner.
                ctx.awaitCommittedStarts(jobId);
                return ctx.view(job);
            }
            if (job.state() != JobState.ACTIVE) {
                throw new ConflictException(
                        "job " + jobId + " is " + job.state() + ": only an ACTIVE job can be paused");
            }
            Instant now = ctx.clock().instant();
            List<Transactions.Write> items = new ArrayList<>();
            items.add(ctx.jobs().markPaused(jobId, owner, job.pendingRunId(), note, now));
            ctx.cancelPending(job, now, "job paused").ifPresent(items::add);
            if (ctx.tx().write(items).won()) {
                ctx.awaitCommittedStarts(jobId);
                return ctx.view(ctx.owned(owner, jobId));
            }
            // A sweep moved the pending run on meanwhile (or another request changed the job): read again.
        }
        throw new IllegalStateException("job " + jobId + " kept changing during pause; try again");
    }

    /** The job's catch-up policy, its mode overridden by the request's {@code catchUp}; a 422 naming the field. */
    static CatchUp catchUp(Job job, ResumeRequest req) {
        CatchUp policy = job.firing().catchUp();
        String value = req == null ? null : req.catchUp();
        if (value == null) {
            return policy;
        }
        CatchUp.Mode mode = FiringPolicies.catchUpMode(value);
        if (mode == null) {
            throw new ValidationException(
                    Rejection.INVALID, List.of(new FieldError("catchUp", "must be one of skip, latest, all")));
        }
        return policy.withMode(mode);
    }

    /**
     * Resumes a paused job. The occurrences of its schedule at or after {@code pausedAt} (or the due time of the
     * pending run the pause cancelled, if earlier) and before now were missed; the job's {@code catchUp} (its mode
     * overridden by the request's) decides which of them run now, none older than its {@code maxAge}. The first
     * occurrence at or after now becomes the pending run. The job's update, the new pending run and the most recent
     * catch-up runs are one transaction (DynamoDB allows 100 items); older catch-up runs follow in further ones.
     * Then the runs due are dispatched.
     */
    public JobView resume(String owner, String jobId, ResumeRequest req) {
        Job job = ctx.owned(owner, jobId);
        CatchUp policy = catchUp(job, req);
        if (job.state() != JobState.PAUSED) {
            throw new ConflictException("job " + jobId + " is " + job.state() + ": only a PAUSED job can be resumed");
        }
        Instant now = ctx.clock().instant();
        Instant pausedAt = job.pausedAt();
        Schedule schedule = ctx.schedules().parse(job.schedule(), job.createdAt(), "schedule");
        // Counted from the pause, or from the run it cancelled if a lagging sweep had left that one due earlier.
        Instant from = job.nextRunAt() != null && job.nextRunAt().isBefore(pausedAt) ? job.nextRunAt() : pausedAt;
        // The missed occurrences the policy runs (none older than its maxAge) and the first one from now on.
        Occurrences.CatchUpSelection missed = Occurrences.catchUp(schedule, policy, from, now, now);
        List<Run> catchUpRuns = new ArrayList<>();
        for (Instant at : missed.kept()) {
            // Due now: no jitter on top of a run that is already late.
            Run run = Run.scheduled(jobId, RunIds.forOccurrence(at), owner, at, job.maxAttempts(), now);
            if (!ctx.runs().occupied(jobId, run.runId())) {
                catchUpRuns.add(run);
            }
        }
        Optional<Run> pending = Occurrences.firstFree(
                        schedule, missed.after(), at -> ctx.runs().occupied(jobId, RunIds.forOccurrence(at)))
                .map(at -> ctx.planner().plan(job, at, now));

        List<Transactions.Write> first = new ArrayList<>();
        first.add(ctx.jobs()
                .markResumed(
                        jobId,
                        owner,
                        pausedAt,
                        pending.map(Run::runId).orElse(null),
                        pending.map(Run::scheduledAt).orElse(null),
                        now));
        pending.ifPresent(r -> first.add(ctx.runs().create(Change.of(Transition.SCHEDULE_OVER_CANCELLED, r, now))));
        // The watch starts afresh: a job is not overdue for the time it was paused.
        ctx.armWatch(job, now).ifPresent(first::add);
        List<Transactions.Write> rest = new ArrayList<>();
        // The most recent catch-up runs go into the first transaction; older ones past its limit into later ones.
        for (Run r : catchUpRuns.reversed()) {
            (first.size() < MAX_TRANSACTION_ITEMS ? first : rest)
                    .add(ctx.runs().create(Change.of(Transition.SCHEDULE_OVER_CANCELLED, r, now)));
        }
        if (!ctx.tx().write(first).won()) {
            Job now2 = ctx.owned(owner, jobId);
            throw new ConflictException("job " + jobId + " is " + now2.state()
                    + (now2.state() == JobState.PAUSED
                            ? " and changed during resume; try again"
                            : ": only a PAUSED job can be resumed"));
        }
        for (int i = 0; i < rest.size(); i += MAX_TRANSACTION_ITEMS) {
            if (!ctx.tx()
                    .write(rest.subList(i, Math.min(rest.size(), i + MAX_TRANSACTION_ITEMS)))
                    .won()) {
                LOG.log(Level.WARNING, "resume of " + jobId + ": some of the oldest catch-up runs already existed");
            }
        }
        List<Run> due = new ArrayList<>(catchUpRuns);
        Instant horizon = now.plus(ctx.settings().lookahead());
        pending.filter(r -> !r.scheduledAt().isAfter(horizon)).ifPresent(due::add);
        if (!due.isEmpty()) {
            try {
                ctx.dispatcher().dispatch(due, horizon);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "dispatch after resuming " + jobId + " failed; the sweeper sends the runs", e);
            }
        }
        return ctx.view(ctx.owned(owner, jobId));
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
        Instant now = ctx.clock().instant();
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
        Job job = ctx.owned(owner, jobId);
        refuseUnlessRunnable(job, "backfill");
        Schedule schedule = ctx.schedules().parse(job.schedule(), job.createdAt(), "schedule");
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
            if (ctx.runs().get(jobId, run.runId()).isEmpty()) {
                created.add(run);
            }
        }
        int perDay = ctx.settings().quotas().backfillPerDay();
        if (!created.isEmpty() && !ctx.usage().countBackfill(owner, now, created.size(), perDay)) {
            throw new QuotaExceededException(
                    "backfillPerDay",
                    "backfilling " + created.size() + " occurrences would pass this tenant's quota of " + perDay
                            + " per UTC day",
                    86_400 - now.getEpochSecond() % 86_400);
        }
        // In chunks of one transaction each, with the job's runnable check, so a delete or pause racing with the
        // backfill stops it; a chunk that loses a race with another backfill is re-checked run by run.
        List<Run> written = new ArrayList<>();
        for (int i = 0; i < created.size(); i += MAX_TRANSACTION_ITEMS - 1) {
            List<Run> chunk = created.subList(i, Math.min(created.size(), i + MAX_TRANSACTION_ITEMS - 1));
            List<Transactions.Write> items = new ArrayList<>();
            items.add(ctx.jobs().conditionRunnable(jobId));
            chunk.forEach(r -> items.add(ctx.runs().create(Change.of(Transition.SCHEDULE, r, now))));
            Transactions.Outcome o = ctx.tx().write(items);
            if (o.won()) {
                written.addAll(chunk);
                continue;
            }
            if (o.failed(0)) {
                refuseUnlessRunnable(ctx.owned(owner, jobId), "backfill");
            }
            for (Run r : chunk) {
                if (ctx.tx()
                        .write(List.of(
                                ctx.jobs().conditionRunnable(jobId),
                                ctx.runs().create(Change.of(Transition.SCHEDULE, r, now))))
                        .won()) {
                    written.add(r);
                }
            }
        }
        List<Run> now2 = written.subList(0, Math.min(written.size(), BACKFILL_DISPATCH_NOW));
        if (!now2.isEmpty()) {
            try {
                ctx.dispatcher().dispatch(now2, now.plus(ctx.settings().lookahead()));
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "dispatch of the backfill of " + jobId + " failed; the sweeper sends it", e);
            }
        }
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

    private static void refuseUnlessRunnable(Job job, String what) {
        if (job.state() == JobState.DELETED || job.state() == JobState.PAUSED) {
            throw new ConflictException("job " + job.id() + " is " + job.state() + ": cannot " + what
                    + (job.state() == JobState.PAUSED ? " it; resume it first" : " it"));
        }
    }
}
