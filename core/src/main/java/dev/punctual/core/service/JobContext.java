package dev.punctual.core.service;

import dev.punctual.core.config.Settings;
import dev.punctual.core.dispatch.Dispatcher;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.infra.PageKey;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.run.WatchRepository;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.tenant.UsageRepository;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the services that change jobs share ({@link JobService}, {@link JobLifecycle}): both tables (and the jobs'
 * watches, kept in the runs table), the transactions that write them together, the dispatcher that sends a run due
 * soon at once, the schedule parser, the run planner, the tenant's usage counters, the settings and the clock. Built
 * once by {@link dev.punctual.core.Punctual}.
 */
public record JobContext(
        JobRepository jobs,
        RunRepository runs,
        WatchRepository watches,
        Transactions tx,
        Dispatcher dispatcher,
        Schedules schedules,
        RunPlanner planner,
        UsageRepository usage,
        Settings settings,
        Clock clock) {
    private static final System.Logger LOG = System.getLogger(JobContext.class.getName());

    /**
     * The write that arms {@code job}'s watch from {@code now}: its expectation's first window, replacing any earlier
     * watch. Empty when it expects nothing, or has no deadline left.
     */
    Optional<Transactions.Write> armWatch(Job job, Instant now) {
        return job.expect() == null
                ? Optional.empty()
                : job.expect().first(now, schedules, job.updatedAt()).map(w -> watches.arm(job.id(), w));
    }

    /**
     * The caller's job. A job of another owner is "not found" as well, so that a tenant cannot learn which job ids
     * exist.
     */
    Job owned(String owner, String jobId) {
        if (!Keys.jobId(jobId)) {
            throw new NotFoundException("not a job id");
        }
        return jobs.get(jobId)
                .filter(j -> j.owner().equals(owner))
                .orElseThrow(() -> new NotFoundException("job " + jobId + " does not exist"));
    }

    /** The run {@code runId} of {@code jobId} (read strongly); the job's owner is the caller's to check first. */
    Run existingRun(String jobId, String runId) {
        if (!Keys.runId(runId)) {
            throw new NotFoundException("not a run id");
        }
        return runs.get(jobId, runId).orElseThrow(() -> new NotFoundException("run " + runId + " does not exist"));
    }

    /** The job as the API shows it now: {@link JobView}, {@code nextRunAt} its next fire time ({@link #nextFire}). */
    JobView view(Job job) {
        return JobView.of(job, nextFire(job, clock.instant()));
    }

    /**
     * When an ACTIVE job next fires: its schedule's first occurrence from {@code now}. The job item holds only the
     * first occurrence not yet queued (the sweeper queues a couple of minutes ahead), so the schedule is asked;
     * when that occurrence is the pending run's, the run's own due time is given (its jitter included), else the
     * occurrence (a run queued already may start up to its jitter later). A pending run due before it (a sweep
     * behind) comes first. Null for a job that is not ACTIVE.
     */
    Instant nextFire(Job job, Instant now) {
        if (job.state() != JobState.ACTIVE) {
            return null;
        }
        Instant pendingAt = job.nextRunAt();
        Optional<Instant> next =
                schedules.parse(job.schedule(), job.createdAt(), "schedule").first(now);
        if (next.isEmpty()
                || (pendingAt != null
                        && (!pendingAt.isAfter(next.get())
                                || RunIds.forOccurrence(next.get()).equals(job.pendingRunId())))) {
            return pendingAt;
        }
        return next.get();
    }

    /**
     * Sends at once those of {@code pending} (runs just written SCHEDULED) due before the next sweep could reach
     * them, so "now" is not a sweep period late. If that fails, each stays SCHEDULED in a bucket the sweeper has not
     * passed, and the next sweep sends it.
     */
    void dispatchSoon(List<Run> pending, Instant now) {
        Instant horizon = now.plus(settings.lookahead());
        List<Run> soon =
                pending.stream().filter(r -> !r.scheduledAt().isAfter(horizon)).toList();
        if (soon.isEmpty()) {
            return;
        }
        try {
            dispatcher.dispatch(soon, horizon);
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "immediate dispatch of " + soon.size() + " runs failed; the sweeper will send them",
                    e);
        }
    }

    /**
     * Returns once no run of the job can start any more that the delete or pause just written does not stop: a run
     * claimed ahead of its instant, whose job was checked right after the claim, is let start at its instant with no
     * store call in between ({@code AttemptRunner}), so a delete or pause that lands after that check waits for the
     * instant (and {@link RunRepository#RELEASE_WINDOW} and {@link RunRepository#CLOCK_SKEW} more) before it
     * answers. At most about three seconds, and only when a run of the job is that close to its instant.
     */
    void awaitCommittedStarts(String jobId) {
        Instant now = clock.instant();
        Optional<Instant> until = runs.startsCommittedUntil(jobId, now);
        if (until.isEmpty()) {
            return;
        }
        // One sleep, from the clock, never a loop on it: a test's fixed clock would never get there.
        long ms = Duration.between(clock.instant(), until.get()).toMillis() + 1;
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(Math.min(ms, MAX_COMMITTED_WAIT.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The most {@link #awaitCommittedStarts} waits, whatever the store says. */
    static final Duration MAX_COMMITTED_WAIT = RunRepository.CLAIM_TOLERANCE
            .plus(RunRepository.RELEASE_WINDOW)
            .plus(RunRepository.CLOCK_SKEW.multipliedBy(2));

    /**
     * The cancel of the job's pending run, for the transaction that pauses or deletes the job, while that run is
     * still SCHEDULED. A run already sent (QUEUED) is left alone: its claim checks the job and will not start it.
     */
    Optional<Transactions.Write> cancelPending(Job job, Instant now, String why) {
        String pending = job.pendingRunId();
        if (pending == null
                || runs.get(job.id(), pending)
                        .filter(r -> r.state() == RunState.SCHEDULED)
                        .isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(runs.write(
                Change.of(Transition.CANCEL_SCHEDULED, job.id(), pending, now).withError(why)));
    }

    /**
     * How far back a delete looks for the job's runs that have not started: runs queued (the sweeper sends them up
     * to its lookahead ahead) and runs waiting for a retry are due within it. One older still waiting reads
     * {@code QUEUED} until its message comes, and is cancelled then, as every such run was before.
     */
    static final Duration CANCEL_LOOKBACK = Duration.ofMinutes(15);

    /**
     * Marks CANCELLED, now, the runs of a deleted job that will not start: those due from {@link #CANCEL_LOOKBACK}
     * ago on, not started (queued, or failed and waiting for a retry). Only after the delete has won: from then on
     * every claim fails on the job, so a run this misses (written a moment ago, or not found by the eventually
     * consistent query) is cancelled by the executor that receives it, and one claimed before the delete is RUNNING
     * and untouched (each write is conditional on the run not having started). A failure here changes nothing the
     * executor would not do anyway: it is logged, not answered.
     */
    void cancelUnstarted(String jobId, Instant now, String why) {
        RunRepository.RunRange unstarted = new RunRepository.RunRange(
                now.minus(CANCEL_LOOKBACK), null, Set.of(RunState.SCHEDULED, RunState.QUEUED, RunState.FAILED));
        try {
            PageKey start = null;
            do {
                RunRepository.PageOfRuns page = runs.listForJob(jobId, 100, start, unstarted);
                for (Run r : page.items()) {
                    runs.apply(Change.of(Transition.CANCEL_UNSTARTED, jobId, r.runId(), now)
                            .withError(why));
                }
                start = page.lastKey();
            } while (start != null);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "job " + jobId + ": its unstarted runs will read CANCELLED only when due", e);
        }
    }
}
