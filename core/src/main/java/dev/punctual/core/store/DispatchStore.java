package dev.punctual.core.store;

import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What dispatching reads and writes, as named operations on domain values that answer how they went: the
 * dispatcher decides, this writes. {@link TableDispatchStore} is it on the jobs and runs tables; a test can give the
 * dispatcher one in memory and check its decisions without DynamoDB.
 */
public interface DispatchStore {
    /** The most jobs {@link #jobs} reads in one call. */
    int MAX_JOBS_READ = JobRepository.MAX_BATCH_READ;

    /** The job, read strongly. */
    Optional<Job> job(String jobId);

    /** The job, read eventually consistently: for a notice of an outcome written elsewhere (a dead letter). */
    Optional<Job> jobSeen(String jobId);

    /** The jobs of {@code jobIds} (at most {@link #MAX_JOBS_READ}) that exist, read strongly, by id. */
    Map<String, Job> jobs(List<String> jobIds);

    /** The run, read strongly. */
    Optional<Run> run(String jobId, String runId);

    /** Whether the run exists, read strongly (its id only). */
    boolean occupied(String jobId, String runId);

    /** Applies one transition of a run on its own; whether it won (a lost condition changes nothing). */
    boolean apply(Change change);

    /** How a succession's write came out. */
    enum Outcome {
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
     * written SCHEDULED at once; with no {@code next}, the job is COMPLETED. All or nothing.
     */
    Outcome advance(Job job, Run from, Optional<Run> next, Instant now);

    /**
     * {@link #advance}, and {@code missed} (the job's pending run, found late) made SKIPPED with {@code why} at once:
     * a catch-up policy left it out. All or nothing.
     */
    Outcome skipAndAdvance(Job job, Run missed, String why, Optional<Run> next, Instant now);
}
