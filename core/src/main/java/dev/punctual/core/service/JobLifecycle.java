package dev.punctual.core.service;

import dev.punctual.core.config.Settings;
import dev.punctual.core.dispatch.Dispatcher;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.Schedules;
import java.lang.System.Logger.Level;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * Trigger, pause and resume. Every change is one conditional transaction that wins or loses; a lost race is read
 * again and retried (or answered with the state that won), never half-written.
 */
public final class JobLifecycle {
    private static final System.Logger LOG = System.getLogger(JobLifecycle.class.getName());
    /** At most this many missed occurrences are run by {@code catchUp: all} (the most recent ones). */
    public static final int MAX_CATCH_UP = 100;
    /** DynamoDB's limit on the items of one transaction. */
    static final int MAX_TRANSACTION_ITEMS = 100;
    private static final int RETRIES = 10;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What resume does with the occurrences that fell while the job was paused. */
    public enum CatchUp {
        /** None of them: the next future occurrence becomes the pending run (the default). */
        SKIP,
        /** One run, for the most recent of them, now. */
        LATEST,
        /** Every one of them (at most {@link #MAX_CATCH_UP}, the most recent), now. */
        ALL
    }

    private final JobRepository jobs;
    private final RunRepository runs;
    private final Transactions tx;
    private final Dispatcher dispatcher;
    private final Schedules schedules;
    private final Settings settings;
    private final Clock clock;

    public JobLifecycle(JobRepository jobs, RunRepository runs, Transactions tx, Dispatcher dispatcher,
                        Schedules schedules, Settings settings, Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.tx = tx;
        this.dispatcher = dispatcher;
        this.schedules = schedules;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * One extra run now, outside the schedule: its own id (the instant plus {@code -t} and a random suffix, so it
     * never collides with an occurrence), written only while the job may run, and dispatched at once. It is not the
     * job's pending run, which stays as it was.
     */
    public RunView trigger(String owner, String jobId) {
        Job job = find(owner, jobId);
        refuseUnlessRunnable(job, "trigger");
        Instant now = clock.instant();
        String runId = RunIds.forOccurrence(now) + "-t" + HexFormat.of().toHexDigits(RANDOM.nextInt()).substring(0, 6);
        Run run = Run.scheduled(jobId, runId, owner, now, job.maxAttempts(), now);
        if (!tx.write(List.of(jobs.conditionRunnable(jobId), runs.insertScheduled(run))).won()) {
            // Paused or deleted meanwhile.
            refuseUnlessRunnable(find(owner, jobId), "trigger");
            throw new ConflictException("job " + jobId + " changed during trigger; try again");
        }
        try {
            dispatcher.dispatch(List.of(run), now.plus(settings.lookahead()));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "immediate dispatch of " + jobId + "/" + runId + " failed; the sweeper sends it", e);
        }
        return RunView.of(runs.get(jobId, runId).orElse(run));
    }

    /**
     * Pauses the job: PAUSED, {@code pausedAt} recorded, and its pending SCHEDULED run cancelled ("job paused"), in
     * one transaction. Runs already queued do not start: the claim requires a job that is not PAUSED. Pausing a
     * paused job changes nothing.
     */
    public JobView pause(String owner, String jobId) {
        for (int i = 0; i < RETRIES; i++) {
            Job job = find(owner, jobId);
            if (job.state() == JobState.PAUSED) {
                return JobView.of(job);
            }
            if (job.state() != JobState.ACTIVE) {
                throw new ConflictException("job " + jobId + " is " + job.state() + ": only an ACTIVE job can be paused");
            }
            Instant now = clock.instant();
            List<TransactWriteItem> items = new ArrayList<>();
            items.add(jobs.markPaused(jobId, owner, job.pendingRunId(), now));
            if (job.pendingRunId() != null && runs.get(jobId, job.pendingRunId())
                    .filter(r -> r.state() == RunState.SCHEDULED).isPresent()) {
                items.add(runs.cancelScheduled(jobId, job.pendingRunId(), now, "job paused"));
            }
            if (tx.write(items).won()) {
                return JobView.of(find(owner, jobId));
            }
            // A sweep moved the pending run on meanwhile (or another request changed the job): read again.
        }
        throw new IllegalStateException("job " + jobId + " kept changing during pause; try again");
    }

    /** Parses {@code catchUp} (null: skip); a 422 naming the field otherwise. */
    public static CatchUp catchUp(ResumeRequest req) {
        String value = req == null ? null : req.catchUp();
        if (value == null) {
            return CatchUp.SKIP;
        }
        try {
            return CatchUp.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ValidationException(422, List.of(new FieldError("catchUp",
                    "must be one of skip, latest, all")));
        }
    }

    /**
     * Resumes a paused job. The occurrences of its schedule at or after {@code pausedAt} (or the due time of the
     * pending run the pause cancelled, if earlier) and before now were missed; {@code catchUp} decides which of them run now. The first occurrence at or after now becomes the
     * pending run. The job's update, the new pending run and the catch-up runs are one transaction (when they fit in
     * one: up to 98 catch-up runs; the rest, at most two, follow in a second one); then the runs due are
     * dispatched.
     */
    public JobView resume(String owner, String jobId, ResumeRequest req) {
        CatchUp policy = catchUp(req);
        Job job = find(owner, jobId);
        if (job.state() != JobState.PAUSED) {
            throw new ConflictException("job " + jobId + " is " + job.state() + ": only a PAUSED job can be resumed");
        }
        Instant now = clock.instant();
        Instant pausedAt = job.pausedAt();
        Schedule schedule = schedules.parse(job.schedule(), job.createdAt(), "schedule");
        // Counted from the pause, or from the run it cancelled if a lagging sweep had left that one due earlier.
        Instant from = job.nextRunAt() != null && job.nextRunAt().isBefore(pausedAt) ? job.nextRunAt() : pausedAt;

        // The missed occurrences (only the most recent MAX_CATCH_UP are kept) and the first one from now on.
        Deque<Instant> missed = new ArrayDeque<>();
        Optional<Instant> t = schedule.first(from);
        while (t.isPresent() && t.get().isBefore(now)) {
            if (missed.size() == MAX_CATCH_UP) {
                missed.removeFirst();
            }
            missed.addLast(t.get());
            t = schedule.next(t.get());
        }
        List<Instant> catchUp = switch (policy) {
            case SKIP -> List.of();
            case LATEST -> missed.isEmpty() ? List.of() : List.of(missed.getLast());
            case ALL -> List.copyOf(missed);
        };
        List<Run> catchUpRuns = new ArrayList<>();
        for (Instant at : catchUp) {
            Run run = Run.scheduled(jobId, RunIds.forOccurrence(at), owner, at, job.maxAttempts(), now);
            if (!alreadyRan(run)) {
                catchUpRuns.add(run);
            }
        }
        Optional<Run> pending = Optional.empty();
        while (t.isPresent()) {
            Run next = Run.scheduled(jobId, RunIds.forOccurrence(t.get()), owner, t.get(), job.maxAttempts(), now);
            if (!alreadyRan(next)) {
                pending = Optional.of(next);
                break;
            }
            t = schedule.next(t.get());
        }

        List<TransactWriteItem> first = new ArrayList<>();
        first.add(jobs.markResumed(jobId, owner, pausedAt, pending.map(Run::runId).orElse(null),
                pending.map(Run::scheduledAt).orElse(null), now));
        pending.ifPresent(r -> first.add(runs.insertScheduledOverCancelled(r)));
        List<TransactWriteItem> rest = new ArrayList<>();
        // The most recent catch-up runs go into the first transaction; older ones past its limit into the second.
        for (Run r : catchUpRuns.reversed()) {
            (first.size() < MAX_TRANSACTION_ITEMS ? first : rest).add(runs.insertScheduledOverCancelled(r));
        }
        if (!tx.write(first).won()) {
            Job now2 = find(owner, jobId);
            throw new ConflictException("job " + jobId + " is " + now2.state()
                    + (now2.state() == JobState.PAUSED ? " and changed during resume; try again"
                    : ": only a PAUSED job can be resumed"));
        }
        if (!rest.isEmpty() && !tx.write(rest).won()) {
            LOG.log(Level.WARNING, "resume of " + jobId + ": some of the oldest catch-up runs already existed");
        }
        List<Run> due = new ArrayList<>(catchUpRuns);
        Instant horizon = now.plus(settings.lookahead());
        pending.filter(r -> !r.scheduledAt().isAfter(horizon)).ifPresent(due::add);
        if (!due.isEmpty()) {
            try {
                dispatcher.dispatch(due, horizon);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "dispatch after resuming " + jobId + " failed; the sweeper sends the runs", e);
            }
        }
        return JobView.of(find(owner, jobId));
    }

    /** Whether the occurrence already has a run that is not a cancelled one (it ran, or is running, already). */
    private boolean alreadyRan(Run run) {
        return runs.get(run.jobId(), run.runId()).filter(r -> r.state() != RunState.CANCELLED).isPresent();
    }

    private static void refuseUnlessRunnable(Job job, String what) {
        if (job.state() == JobState.DELETED || job.state() == JobState.PAUSED) {
            throw new ConflictException("job " + job.id() + " is " + job.state() + ": cannot " + what
                    + (job.state() == JobState.PAUSED ? " it; resume it first" : " it"));
        }
    }

    private Job find(String owner, String jobId) {
        return jobs.get(jobId).filter(j -> j.owner().equals(owner))
                .orElseThrow(() -> new NotFoundException("job " + jobId + " does not exist"));
    }
}
