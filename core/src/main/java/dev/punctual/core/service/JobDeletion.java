package dev.punctual.core.service;

import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.WatchRepository;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.tenant.SchedulePeak;
import dev.punctual.core.tenant.UsageRepository;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code DELETE /v1/jobs/{id}}: the job marked deleted, its quota, secrets and watch given back, and its pending run
 * cancelled, in one transaction.
 */
public final class JobDeletion {
    private final JobRepository jobs;
    private final WatchRepository watches;
    private final UsageRepository usage;
    private final Transactions tx;
    private final Schedules schedules;
    private final OwnedJobs ownedJobs;
    private final JobStops stops;
    private final Clock clock;

    public JobDeletion(
            JobRepository jobs,
            WatchRepository watches,
            UsageRepository usage,
            Transactions tx,
            Schedules schedules,
            OwnedJobs ownedJobs,
            JobStops stops,
            Clock clock) {
        this.jobs = jobs;
        this.watches = watches;
        this.usage = usage;
        this.tx = tx;
        this.schedules = schedules;
        this.ownedJobs = ownedJobs;
        this.stops = stops;
        this.clock = clock;
    }

    /**
     * Deletes the job and cancels its pending run atomically. Runs already in the queue are stopped by their claim,
     * which checks the job (in its transaction, or right after it). A run claimed ahead of its instant whose check
     * came before this delete starts at its instant: the delete answers only after that ({@link
     * JobStops#awaitCommittedStarts}), so no run of the job starts after the answer. Deleting a deleted job is a
     * no-op.
     */
    public void delete(String owner, String jobId) {
        for (int i = 0; i < JobService.RETRIES; i++) {
            Job job = ownedJobs.owned(owner, jobId);
            if (job.state() == JobState.DELETED) {
                // Deleted by a request still waiting for a run (below): this one answers no sooner.
                stops.awaitCommittedStarts(jobId);
                return;
            }
            Instant now = clock.instant();
            List<Transactions.Write> items = new ArrayList<>();
            items.add(jobs.markDeleted(jobId, owner, job.pendingRunId(), now));
            items.add(usage.removeJob(owner, SchedulePeak.of(job.schedule(), schedules)));
            if (!job.secretNames().isEmpty()) {
                items.add(jobs.putSecrets(jobId, Map.of()));
            }
            if (job.webhook() != null) {
                items.add(jobs.putWebhookSecret(jobId, null));
            }
            if (job.expect() != null) {
                items.add(watches.disarm(jobId));
            }
            stops.cancelPending(job, now, "job deleted").ifPresent(items::add);
            if (tx.write(items).won()) {
                stops.cancelUnstarted(jobId, now, "job deleted");
                stops.awaitCommittedStarts(jobId);
                return;
            }
            // A sweep moved the pending run on meanwhile: read again and retry against the new one.
        }
        throw new IllegalStateException("job " + jobId + " kept changing during delete; try again");
    }
}
