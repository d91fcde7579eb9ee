package dev.punctual.core.store;

import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunItems;
import dev.punctual.core.run.RunRepository;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The claim of a run whose job says its runs must not overlap ({@code overlap: forbid|queue}), across the jobs and
 * runs tables in one transaction: the named operation the executor needs, taking domain values and answering
 * which condition lost, so that the executor decides without a DynamoDB type. (A run that may overlap is claimed
 * with one conditional update of its own: {@link RunRepository#applyReturningNew}.)
 */
public final class Claims {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final Transactions tx;

    public Claims(JobRepository jobs, RunRepository runs, Transactions tx) {
        this.jobs = jobs;
        this.runs = runs;
        this.tx = tx;
    }

    /** How an exclusive claim came out. */
    public sealed interface Exclusive {}

    /** The run is this claim's: RUNNING, with the attempt and lease {@code grant} gave it. */
    public record Won() implements Exclusive {}

    /** The run's own condition failed: {@code seen} is the run as it was (null: there is no such run). */
    public record RunLost(Run seen) implements Exclusive {}

    /**
     * The job's condition failed: it may not run ({@code state}: PAUSED or DELETED; empty, no job), or its active
     * run is not the one expected any more (another run of it was claimed meanwhile: claim again).
     */
    public record JobLost(Optional<JobState> state) implements Exclusive {}

    /** The job's active run, {@code active}, is RUNNING under a live lease: this run must not start beside it. */
    public record OverlapRunning(String active) implements Exclusive {}

    /** Other transactions held the items, or no condition said why: nothing was written. */
    public record Conflict() implements Exclusive {}

    /**
     * Claims the run of {@code grant} (a {@link dev.punctual.core.run.Transition#CLAIM}) if its job may run, its
     * job's active run is still {@code active} (null: none) and that run is not RUNNING under a live lease at
     * {@code now}; the job's active run becomes this one. Two runs of one job claimed at once both expect the same
     * active run, so at most one wins.
     */
    public Exclusive claimExclusive(Change grant, String active, Instant now) {
        List<TransactWriteItem> items = new ArrayList<>();
        items.add(jobs.takeActiveRun(grant.jobId(), active, grant.runId()));
        int overlapIndex = -1;
        if (active != null && !active.equals(grant.runId())) {
            overlapIndex = items.size();
            items.add(runs.conditionNotRunning(grant.jobId(), active, now));
        }
        items.add(runs.write(grant));
        int runIndex = items.size() - 1;
        Transactions.Outcome o = tx.write(items);
        if (o.won()) {
            return new Won();
        }
        if (o.failed(runIndex)) {
            return new RunLost(RunItems.fromItem(o.oldItem(runIndex)));
        }
        if (o.failed(0)) {
            return new JobLost(JobRepository.stateOf(o.oldItem(0)));
        }
        if (overlapIndex >= 0 && o.failed(overlapIndex)) {
            return new OverlapRunning(active);
        }
        return new Conflict();
    }
}
