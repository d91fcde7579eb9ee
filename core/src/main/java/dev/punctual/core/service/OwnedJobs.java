package dev.punctual.core.service;

import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.schedule.Schedules;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * The caller's side of a request about one job: the job, found only when it is the caller's ({@link #owned}), one of
 * its runs, and the job as the API shows it, with when it next fires ({@link #view}). Shared by the services that
 * read or change jobs ({@link JobService}, {@link JobLifecycle}, {@link JobUpdate}, {@link RunLogs}).
 */
public final class OwnedJobs {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final Schedules schedules;
    private final Clock clock;

    public OwnedJobs(JobRepository jobs, RunRepository runs, Schedules schedules, Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.schedules = schedules;
        this.clock = clock;
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
}
