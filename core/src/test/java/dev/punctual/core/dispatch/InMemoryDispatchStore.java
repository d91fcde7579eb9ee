package dev.punctual.core.dispatch;

import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.store.DispatchStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@link DispatchStore} in memory, with the conditions of {@code TableDispatchStore}'s writes: a succession wins only
 * on the job as it was read (version, ACTIVE, pending run) and over a next occurrence that is absent or CANCELLED; a
 * run's transition only from the states it allows. A test may answer a succession itself ({@link #answer}) to stand
 * for what the tables do under load (conflicts, another writer), and reads what was written.
 */
final class InMemoryDispatchStore implements DispatchStore {
    private final Map<String, Job> jobs = new HashMap<>();
    private final Map<String, Run> runs = new HashMap<>();
    /** Every succession asked for, in order: its job as the dispatcher read it. */
    final List<Job> advances = new ArrayList<>();
    /** Every run transition asked for, won or lost. */
    final List<Change> changes = new ArrayList<>();
    /** Asked before each succession is written: an outcome to answer instead, or null to write it. */
    Function<Job, Outcome> answer = job -> null;

    synchronized void put(Job job) {
        jobs.put(job.id(), job);
    }

    synchronized void put(Run run) {
        runs.put(key(run.jobId(), run.runId()), run);
    }

    synchronized Job jobNow(String jobId) {
        return jobs.get(jobId);
    }

    synchronized Run runNow(String jobId, String runId) {
        return runs.get(key(jobId, runId));
    }

    @Override
    public synchronized Optional<Job> job(String jobId) {
        return Optional.ofNullable(jobs.get(jobId));
    }

    @Override
    public Optional<Job> jobSeen(String jobId) {
        return job(jobId);
    }

    @Override
    public synchronized Map<String, Job> jobs(List<String> jobIds) {
        Map<String, Job> out = new HashMap<>();
        jobIds.forEach(id -> {
            if (jobs.containsKey(id)) {
                out.put(id, jobs.get(id));
            }
        });
        return out;
    }

    @Override
    public synchronized Optional<Run> run(String jobId, String runId) {
        return Optional.ofNullable(runs.get(key(jobId, runId)));
    }

    @Override
    public synchronized boolean occupied(String jobId, String runId) {
        return run(jobId, runId).filter(r -> r.state() != RunState.CANCELLED).isPresent();
    }

    @Override
    public synchronized boolean apply(Change change) {
        changes.add(change);
        Run run = runs.get(key(change.jobId(), change.runId()));
        if (run == null || !change.transition().from().contains(run.state())) {
            return false;
        }
        put(withState(run, change.transition().to().orElse(run.state()), change.error()));
        return true;
    }

    @Override
    public synchronized Outcome advance(Job job, Run from, Optional<Run> next, Instant now) {
        advances.add(job);
        Outcome answered = answer.apply(job);
        if (answered != null) {
            return answered;
        }
        Job current = jobs.get(job.id());
        if (current == null
                || current.version() != job.version()
                || current.state() != JobState.ACTIVE
                || !from.runId().equals(current.pendingRunId())) {
            return Outcome.JOB_CHANGED;
        }
        if (next.isPresent() && occupied(job.id(), next.get().runId())) {
            return Outcome.NEXT_TAKEN;
        }
        put(current.toBuilder()
                .state(next.isPresent() ? JobState.ACTIVE : JobState.COMPLETED)
                .pendingRunId(next.map(Run::runId).orElse(null))
                .nextRunAt(next.map(Run::scheduledAt).orElse(null))
                .updatedAt(now)
                .build());
        next.ifPresent(this::put);
        return Outcome.WON;
    }

    @Override
    public synchronized Outcome skipAndAdvance(Job job, Run missed, String why, Optional<Run> next, Instant now) {
        Run run = runs.get(key(missed.jobId(), missed.runId()));
        if (run == null || run.state() != RunState.SCHEDULED) {
            return Outcome.JOB_CHANGED;
        }
        Outcome o = advance(job, missed, next, now);
        if (o == Outcome.WON) {
            put(withState(run, RunState.SKIPPED, why));
        }
        return o;
    }

    private static String key(String jobId, String runId) {
        return jobId + "/" + runId;
    }

    private static Run withState(Run r, RunState state, String error) {
        return new Run(
                r.jobId(),
                r.runId(),
                r.owner(),
                r.scheduledAt(),
                state,
                r.attempt(),
                r.maxAttempts(),
                r.leaseOwner(),
                r.leaseExpiry(),
                r.exitCode(),
                r.startedAt(),
                r.finishedAt(),
                error != null ? error : r.error(),
                r.logKey(),
                r.log(),
                r.createdAt(),
                r.occurrence(),
                r.queuedAt(),
                r.launchedAt(),
                r.overrides(),
                r.waiting(),
                r.history());
    }
}
