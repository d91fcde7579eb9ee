package dev.punctual.core.store;

import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The writes that move a job from one occurrence to the next, across the jobs and runs tables in one transaction:
 * the named operations dispatching needs, taking domain values and answering how it went, so that the dispatcher
 * decides without a DynamoDB type. The expressions themselves stay in each table's repository.
 */
public final class Successions {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final Transactions tx;

    public Successions(JobRepository jobs, RunRepository runs, Transactions tx) {
        this.jobs = jobs;
        this.runs = runs;
        this.tx = tx;
    }

    /** How a succession's write came out. */
    public enum Outcome {
        WON,
        /** The job is not as it was read (its version, state or pending run moved on): read it again. */
        JOB_CHANGED,
        /** The next occurrence already has a run (a backfill made it): move past it. */
        NEXT_TAKEN,
        /** Other transactions held the items through every retry: nothing was written; try a later sweep. */
        CONFLICT
    }

    /**
     * Moves {@code job} (as read: its version and state pinned) from its pending run {@code from} to {@code next},
     * written SCHEDULED in the same transaction; with no {@code next}, the job is COMPLETED.
     */
    public Outcome advance(Job job, Run from, Optional<Run> next, Instant now) {
        return outcome(tx.writeRetryingConflicts(items(job, from, next, now)));
    }

    /**
     * {@link #advance}, and {@code missed} (the job's pending run, found late) made SKIPPED with {@code why} in the
     * same transaction: a catch-up policy left it out.
     */
    public Outcome skipAndAdvance(Job job, Run missed, String why, Optional<Run> next, Instant now) {
        List<TransactWriteItem> items = items(job, missed, next, now);
        items.add(runs.write(
                Change.of(Transition.SKIP_MISSED, job.id(), missed.runId(), now).withError(why)));
        return outcome(tx.writeRetryingConflicts(items));
    }

    private List<TransactWriteItem> items(Job job, Run from, Optional<Run> next, Instant now) {
        List<TransactWriteItem> items = new ArrayList<>();
        items.add(jobs.advancePending(
                job.id(),
                job.version(),
                from.runId(),
                next.map(Run::runId).orElse(null),
                next.map(Run::scheduledAt).orElse(null),
                now));
        next.ifPresent(n -> items.add(runs.create(Change.of(Transition.SCHEDULE_OVER_CANCELLED, n, now))));
        return items;
    }

    private static Outcome outcome(Transactions.Outcome o) {
        if (o.won()) {
            return Outcome.WON;
        }
        if (o.conflictOnly()) {
            return Outcome.CONFLICT;
        }
        // The job's item comes first; the next occurrence's put second (when there is one).
        return o.failed(0) ? Outcome.JOB_CHANGED : o.failed(1) ? Outcome.NEXT_TAKEN : Outcome.JOB_CHANGED;
    }
}
