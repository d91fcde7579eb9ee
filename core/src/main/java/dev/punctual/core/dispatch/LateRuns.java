package dev.punctual.core.dispatch;

import dev.punctual.core.dispatch.Dispatcher.Count;
import dev.punctual.core.dispatch.Dispatcher.DispatchReport;
import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.notify.RunNotice;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.plan.Occurrences;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.store.DispatchStore;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What a chain does with a SCHEDULED run it finds late ({@link #catchUp}): sent, or left out by its job's catch-up. */
final class LateRuns {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final DispatchStore store;
    private final Schedules schedules;
    private final Clock clock;
    private final RunPlanner planner;
    private final RunNotices notices;

    LateRuns(DispatchStore store, Schedules schedules, Clock clock, RunPlanner planner, RunNotices notices) {
        this.store = store;
        this.schedules = schedules;
        this.clock = clock;
        this.planner = planner;
        this.notices = notices;
    }

    /**
     * A SCHEDULED run found late (due more than {@link CatchUp#MISSED_AFTER} ago: the scheduler could not dispatch
     * it in time). If it is its job's pending run of a recurring schedule, the job's catch-up policy decides which of
     * the occurrences missed since run late: {@code skip} none, {@code latest} the most recent, {@code all} each,
     * the most recent {@code maxRuns}; none older than {@code maxAge}. When the policy leaves this run out, it
     * becomes SKIPPED (its error counts what was skipped) and, in the same transaction, the job moves on to the
     * first occurrence the policy keeps, or to its first future one: that run is returned to be sent instead. Other
     * runs (one-off kinds, catch-up and backfill runs, triggers) are sent as they are.
     */
    Optional<Run> catchUp(Run run, Map<String, Instant> keptFrom, DispatchReport report) {
        Instant kept0 = keptFrom.get(run.jobId());
        if (kept0 != null && !run.occurrence().isBefore(kept0)) {
            return Optional.of(run);
        }
        try {
            Optional<Job> found = store.job(run.jobId());
            if (found.isEmpty()
                    || found.get().state() != JobState.ACTIVE
                    || !run.runId().equals(found.get().pendingRunId())) {
                return Optional.of(run);
            }
            Job job = found.get();
            Schedule schedule = schedules.parse(job.schedule(), job.createdAt(), "schedule");
            if (schedule instanceof Schedule.Now || schedule instanceof Schedule.Once) {
                return Optional.of(run);
            }
            Instant now = clock.instant();
            CatchUp policy = job.firing().catchUp();
            // The missed occurrences run from the run's own; the policy keeps some, or none and the first one
            // that is not missed.
            Occurrences.CatchUpSelection missed =
                    Occurrences.catchUp(schedule, policy, run.occurrence(), now.minus(CatchUp.MISSED_AFTER), now);
            List<Instant> kept = missed.kept();
            Optional<Instant> target = kept.isEmpty() ? missed.after() : Optional.of(kept.getFirst());
            if (target.isPresent() && target.get().equals(run.occurrence())) {
                keptFrom.put(run.jobId(), run.occurrence());
                return Optional.of(run);
            }
            // Left out: move the job past it to the target, skipping occurrences that already have a run.
            target = Occurrences.firstFree(schedule, target, t -> store.occupied(job.id(), RunIds.forOccurrence(t)));
            Optional<Run> next = target.map(at -> planner.plan(job, at, now));
            String why = "missed: not run by catchUp " + policy.mode().wire() + " (maxAge " + policy.maxAge()
                    + ", maxRuns " + policy.maxRuns() + "); occurrences from " + run.occurrence() + " up to "
                    + next.map(r -> r.occurrence().toString()).orElse("the end of the schedule")
                    + " not run"
                    + (policy.mode() == CatchUp.Mode.SKIP
                            ? ""
                            : " (" + missed.count() + " within maxAge, " + kept.size() + " kept)");
            if (store.skipAndAdvance(job, run, why, next, now) != DispatchStore.Outcome.WON) {
                // The job or run moved on meanwhile (another sweeper, a delete, a pause): nothing to send from here.
                return Optional.empty();
            }
            // Published with the run as read (its tenant, due time and attempt); the write fenced on its state only.
            RunNotice.of(Change.of(Transition.SKIP_MISSED, run, now).withError(why), job, Dispatcher.SWEEPER)
                    .ifPresent(notices::publish);
            report.count(Count.SKIPPED);
            LOG.log(Level.INFO, "job " + job.id() + ": " + why);
            next.ifPresent(n -> {
                report.count(Count.MATERIALIZED);
                if (!kept.isEmpty()) {
                    keptFrom.put(job.id(), n.occurrence());
                }
            });
            return next;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "catch-up of " + run.jobId() + "/" + run.runId() + " failed", e);
            report.failed(run);
            return Optional.empty();
        }
    }
}
