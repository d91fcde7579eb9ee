package dev.punctual.core.service;

import dev.punctual.core.config.Settings;
import dev.punctual.core.dispatch.Dispatcher;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.tenant.UsageRepository;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * What the services that change jobs share ({@link JobService}, {@link JobLifecycle}): both tables, the
 * transactions that write them together, the dispatcher that sends a run due soon at once, the schedule parser, the
 * run planner, the tenant's usage counters, the settings and the clock. Built once by {@link dev.punctual.core.Punctual}.
 */
public record JobContext(
        JobRepository jobs,
        RunRepository runs,
        Transactions tx,
        Dispatcher dispatcher,
        Schedules schedules,
        RunPlanner planner,
        UsageRepository usage,
        Settings settings,
        Clock clock) {

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

    /**
     * The cancel of the job's pending run, for the transaction that pauses or deletes the job, while that run is
     * still SCHEDULED. A run already sent (QUEUED) is left alone: its claim checks the job and will not start it.
     */
    Optional<TransactWriteItem> cancelPending(Job job, Instant now, String why) {
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
}
