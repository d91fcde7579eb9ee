package dev.punctual.core.dispatch;

import dev.punctual.core.dispatch.Dispatcher.Count;
import dev.punctual.core.dispatch.Dispatcher.DispatchReport;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.plan.Occurrences;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.store.DispatchStore;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * A job's move from a run to its next occurrence (a {@link Succession}: one transaction, the job's pending run and
 * the new run), and the mark of a sent run after it ({@link #markAndMaterialize}).
 */
final class Successions {
    private final DispatchStore store;
    private final Schedules schedules;
    private final Clock clock;
    private final RunPlanner planner;

    Successions(DispatchStore store, Schedules schedules, Clock clock, RunPlanner planner) {
        this.store = store;
        this.schedules = schedules;
        this.clock = clock;
        this.planner = planner;
    }

    /** What a run's succession left: its job's next occurrence if this write made it, and the job as written. */
    record Moved(Optional<Run> next, Job job) {}

    /**
     * Moves the job ({@code job}, as read strongly or as its chain wrote it) from the sent run to its next
     * occurrence, then marks the run QUEUED; returns that occurrence if this write made it, and the job as written.
     *
     * <p>The mark is a write of its own after the job's transaction, not one of its items: a transaction pays twice
     * for every item, indexes included, and the mark (whose due-index entry moves) is the dearest of the three. The
     * order is what makes the split safe. Stopped between the two, the run is still SCHEDULED but no longer its
     * job's pending run, and its successor is written: the next sweep sends it again and only marks it (the
     * executor's claim makes the second message harmless), and nothing is late. Marked first, a stop would leave a
     * QUEUED pending run with no successor until its entry's attention time, minutes later.
     */
    Moved markAndMaterialize(Run run, Optional<Job> job, DispatchReport report) {
        Instant now = clock.instant();
        Written w = succession(run, job, now, false).map(this::write).orElse(null);
        if (w != null && w.outcome() == DispatchStore.Outcome.JOB_CHANGED) {
            // The job changed since it was read (an update, a pause, another sweeper's move): read it again.
            w = succession(run, store.job(run.jobId()), now, false)
                    .map(this::write)
                    .orElse(null);
        }
        if (w != null && w.outcome() == DispatchStore.Outcome.CONFLICT) {
            // Still held by other transactions after the retries: the run stays SCHEDULED for a later sweep.
            report.failed(run);
            return new Moved(Optional.empty(), null);
        }
        Optional<Run> next = Optional.empty();
        Job after = null;
        if (w != null && w.outcome() == DispatchStore.Outcome.WON) {
            after = w.succession().jobAfter();
            next = w.succession().next();
            next.ifPresent(n -> report.count(Count.MATERIALIZED));
        }
        // Lost when an executor claimed the run straight from SCHEDULED, or another sweeper marked it first.
        if (store.apply(Change.of(Transition.MARK_QUEUED, run.jobId(), run.runId(), now))) {
            report.count(Count.MARKED);
        }
        return new Moved(next, after);
    }

    /**
     * Writes a succession. If it loses because its next occurrence already has a run (a backfill made it), the job
     * moves on to the first occurrence that has none, in a second try.
     */
    Written write(Succession s) {
        DispatchStore.Outcome o = s.write(store);
        if (o == DispatchStore.Outcome.NEXT_TAKEN) {
            Optional<Succession> past =
                    succession(s.current(), store.job(s.current().jobId()), clock.instant(), true);
            if (past.isPresent()) {
                return new Written(past.get(), past.get().write(store));
            }
        }
        return new Written(s, o);
    }

    record Written(Succession succession, DispatchStore.Outcome outcome) {}

    /**
     * The writes that move a job ({@code job}, as read strongly) from {@code run} to its next occurrence (or
     * complete it), when {@code run} is the job's pending run; empty for one-off runs and jobs that are gone or
     * already moved on. With {@code skipExisting}, past occurrences that already have a run are stepped over.
     */
    Optional<Succession> succession(Run run, Optional<Job> job, Instant now, boolean skipExisting) {
        if (job.isEmpty()
                || job.get().state() != JobState.ACTIVE
                || !run.runId().equals(job.get().pendingRunId())) {
            return Optional.empty();
        }
        Job j = job.get();
        Schedule schedule = schedules.parse(j.schedule(), j.createdAt(), "schedule");
        Optional<Instant> at = Occurrences.firstFree(
                schedule,
                schedule.next(run.occurrence()),
                t -> skipExisting && store.run(j.id(), RunIds.forOccurrence(t)).isPresent());
        Optional<Run> next = at.map(t -> planner.plan(j, t, now));
        return Optional.of(new Succession(run, j, next, now));
    }
}
