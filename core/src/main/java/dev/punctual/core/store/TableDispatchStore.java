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
import java.util.Map;
import java.util.Optional;

/**
 * {@link DispatchStore} on the jobs and runs tables: reads and single writes go to each table's repository, and a
 * succession (the job moved from one occurrence to the next, the next written) is one transaction across both. The
 * expressions themselves stay in each table's repository.
 */
public final class TableDispatchStore implements DispatchStore {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final Transactions tx;

    public TableDispatchStore(JobRepository jobs, RunRepository runs, Transactions tx) {
        this.jobs = jobs;
        this.runs = runs;
        this.tx = tx;
    }

    @Override
    public Optional<Job> job(String jobId) {
        return jobs.get(jobId);
    }

    @Override
    public Optional<Job> jobSeen(String jobId) {
        return jobs.get(jobId, false);
    }

    @Override
    public Map<String, Job> jobs(List<String> jobIds) {
        return jobs.getAll(jobIds);
    }

    @Override
    public Optional<Run> run(String jobId, String runId) {
        return runs.get(jobId, runId);
    }

    @Override
    public boolean occupied(String jobId, String runId) {
        return runs.occupied(jobId, runId);
    }

    @Override
    public boolean apply(Change change) {
        return runs.apply(change).won();
    }

    @Override
    public Outcome advance(Job job, Run from, Optional<Run> next, Instant now) {
        return outcome(tx.writeRetryingConflicts(items(job, from, next, now)));
    }

    @Override
    public Outcome skipAndAdvance(Job job, Run missed, String why, Optional<Run> next, Instant now) {
        List<Transactions.Write> items = items(job, missed, next, now);
        items.add(runs.write(
                Change.of(Transition.SKIP_MISSED, job.id(), missed.runId(), now).withError(why)));
        return outcome(tx.writeRetryingConflicts(items));
    }

    private List<Transactions.Write> items(Job job, Run from, Optional<Run> next, Instant now) {
        List<Transactions.Write> items = new ArrayList<>();
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
