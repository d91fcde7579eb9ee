package dev.punctual.core.service;

import dev.punctual.core.error.ConflictException;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.QuotaExceededException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.limits.Quotas;
import dev.punctual.core.plan.Occurrences;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Overrides;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.tenant.UsageRepository;
import java.lang.System.Logger.Level;
import java.security.SecureRandom;
import java.time.Clock;
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
    /** DynamoDB's limit on the items of one transaction. */
    static final int MAX_TRANSACTION_ITEMS = 100;

    private static final int RETRIES = 10;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final JobRepository jobs;
    private final RunRepository runs;
    private final UsageRepository usage;
    private final Transactions tx;
    private final Schedules schedules;
    private final RunPlanner planner;
    private final OwnedJobs ownedJobs;
    private final JobStarts starts;
    private final JobStops stops;
    private final Quotas quotas;
    private final Clock clock;

    public JobLifecycle(
            JobRepository jobs,
            RunRepository runs,
            UsageRepository usage,
            Transactions tx,
            Schedules schedules,
            RunPlanner planner,
            OwnedJobs ownedJobs,
            JobStarts starts,
            JobStops stops,
            Quotas quotas,
            Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.usage = usage;
        this.tx = tx;
        this.schedules = schedules;
        this.planner = planner;
        this.ownedJobs = ownedJobs;
        this.starts = starts;
        this.stops = stops;
        this.quotas = quotas;
        this.clock = clock;
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
        Job job = ownedJobs.owned(owner, jobId);
        refuseUnlessRunnable(job, "trigger");
        Overrides overrides = BinaryInputs.overrides(job, req);
        Instant now = clock.instant();
        int perMinute = quotas.triggersPerMinute();
        if (!usage.countTrigger(owner, now, perMinute)) {
            throw new QuotaExceededException(
                    "triggersPerMinute",
                    "this tenant has triggered " + perMinute + " runs this minute, its quota",
                    60 - now.getEpochSecond() % 60);
        }
        String runId = RunIds.forOccurrence(now) + "-t"
                + HexFormat.of().toHexDigits(RANDOM.nextInt()).substring(0, 6);
        Run run =
                Run.scheduled(jobId, runId, owner, now, job.maxAttempts(), now).withOverrides(overrides);
        if (!tx.write(List.of(jobs.conditionRunnable(jobId), runs.create(Change.of(Transition.SCHEDULE, run, now))))
                .won()) {
            // Paused or deleted meanwhile.
            refuseUnlessRunnable(ownedJobs.owned(owner, jobId), "trigger");
            throw new ConflictException("job " + jobId + " changed during trigger; try again");
        }
        starts.dispatchSoon(List.of(run), now);
        return RunView.of(runs.get(jobId, runId).orElse(run), job.name());
    }

    /**
     * Pauses the job: PAUSED, {@code pausedAt} recorded, and its pending SCHEDULED run cancelled ("job paused"), in
     * one transaction. Runs already queued do not start: their claim checks that the job is not PAUSED. As for a
     * delete, the answer waits for a run whose check came first and whose instant is near ({@link
     * JobStops#awaitCommittedStarts}). Pausing a paused job changes nothing, its note included.
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
            Job job = ownedJobs.owned(owner, jobId);
            if (job.state() == JobState.PAUSED) {
                // Paused by a request still waiting for a run (below): this one answers no sooner.
                stops.awaitCommittedStarts(jobId);
                return ownedJobs.view(job);
            }
            if (job.state() != JobState.ACTIVE) {
                throw new ConflictException(
                        "job " + jobId + " is " + job.state() + ": only an ACTIVE job can be paused");
            }
            Instant now = clock.instant();
            List<Transactions.Write> items = new ArrayList<>();
            items.add(jobs.markPaused(jobId, owner, job.pendingRunId(), note, now));
            stops.cancelPending(job, now, "job paused").ifPresent(items::add);
            if (tx.write(items).won()) {
                stops.awaitCommittedStarts(jobId);
                return ownedJobs.view(ownedJobs.owned(owner, jobId));
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
        CatchUp.Mode mode = FiringChecks.catchUpMode(value);
        if (mode == null) {
            throw new ValidationException(
                    Rejection.INVALID, List.of(new FieldError("catchUp", FiringChecks.CATCH_UP_MODES)));
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
        Job job = ownedJobs.owned(owner, jobId);
        CatchUp policy = catchUp(job, req);
        if (job.state() != JobState.PAUSED) {
            throw new ConflictException("job " + jobId + " is " + job.state() + ": only a PAUSED job can be resumed");
        }
        Instant now = clock.instant();
        Instant pausedAt = job.pausedAt();
        Schedule schedule = schedules.parse(job.schedule(), job.createdAt(), "schedule");
        // Counted from the pause, or from the run it cancelled if a lagging sweep had left that one due earlier.
        Instant from = job.nextRunAt() != null && job.nextRunAt().isBefore(pausedAt) ? job.nextRunAt() : pausedAt;
        // The missed occurrences the policy runs (none older than its maxAge) and the first one from now on.
        Occurrences.CatchUpSelection missed = Occurrences.catchUp(schedule, policy, from, now, now);
        List<Run> catchUpRuns = new ArrayList<>();
        for (Instant at : missed.kept()) {
            // Due now: no jitter on top of a run that is already late.
            Run run = Run.scheduled(jobId, RunIds.forOccurrence(at), owner, at, job.maxAttempts(), now);
            if (!runs.occupied(jobId, run.runId())) {
                catchUpRuns.add(run);
            }
        }
        Optional<Run> pending = Occurrences.firstFree(
                        schedule, missed.after(), at -> runs.occupied(jobId, RunIds.forOccurrence(at)))
                .map(at -> planner.plan(job, at, now));

        List<Transactions.Write> first = new ArrayList<>();
        first.add(jobs.markResumed(
                jobId,
                owner,
                pausedAt,
                pending.map(Run::runId).orElse(null),
                pending.map(Run::scheduledAt).orElse(null),
                now));
        pending.ifPresent(r -> first.add(runs.create(Change.of(Transition.SCHEDULE_OVER_CANCELLED, r, now))));
        // The watch starts afresh: a job is not overdue for the time it was paused.
        starts.armWatch(job, now).ifPresent(first::add);
        List<Transactions.Write> rest = new ArrayList<>();
        // The most recent catch-up runs go into the first transaction; older ones past its limit into later ones.
        for (Run r : catchUpRuns.reversed()) {
            (first.size() < MAX_TRANSACTION_ITEMS ? first : rest)
                    .add(runs.create(Change.of(Transition.SCHEDULE_OVER_CANCELLED, r, now)));
        }
        if (!tx.write(first).won()) {
            Job now2 = ownedJobs.owned(owner, jobId);
            throw new ConflictException("job " + jobId + " is " + now2.state()
                    + (now2.state() == JobState.PAUSED
                            ? " and changed during resume; try again"
                            : ": only a PAUSED job can be resumed"));
        }
        for (int i = 0; i < rest.size(); i += MAX_TRANSACTION_ITEMS) {
            if (!tx.write(rest.subList(i, Math.min(rest.size(), i + MAX_TRANSACTION_ITEMS)))
                    .won()) {
                LOG.log(Level.WARNING, "resume of " + jobId + ": some of the oldest catch-up runs already existed");
            }
        }
        // Catch-up runs are past occurrences; the pending run goes too if it is due before the next sweep.
        List<Run> due = new ArrayList<>(catchUpRuns);
        pending.ifPresent(due::add);
        starts.dispatchSoon(due, now);
        return ownedJobs.view(ownedJobs.owned(owner, jobId));
    }

    static void refuseUnlessRunnable(Job job, String what) {
        if (job.state() == JobState.DELETED || job.state() == JobState.PAUSED) {
            throw new ConflictException("job " + job.id() + " is " + job.state() + ": cannot " + what
                    + (job.state() == JobState.PAUSED ? " it; resume it first" : " it"));
        }
    }
}
