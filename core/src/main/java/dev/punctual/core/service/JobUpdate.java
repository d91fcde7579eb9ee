package dev.punctual.core.service;

import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.limits.Quotas;
import dev.punctual.core.plan.Occurrences;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.run.WatchRepository;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.tenant.SchedulePeak;
import dev.punctual.core.tenant.UsageRepository;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A job's definition replaced ({@code PUT}), or what the replacement would be ({@code ?dryRun=true}): validated as a
 * creation is, checked against the version the caller read, and written with the job's pending run moved to the new
 * schedule in one transaction.
 */
public final class JobUpdate {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final WatchRepository watches;
    private final UsageRepository usage;
    private final Transactions tx;
    private final Schedules schedules;
    private final RunPlanner planner;
    private final OwnedJobs ownedJobs;
    private final JobStarts starts;
    private final JobValidator validator;
    private final Quotas quotas;
    private final Clock clock;

    public JobUpdate(
            JobRepository jobs,
            RunRepository runs,
            WatchRepository watches,
            UsageRepository usage,
            Transactions tx,
            Schedules schedules,
            RunPlanner planner,
            OwnedJobs ownedJobs,
            JobStarts starts,
            JobValidator validator,
            Quotas quotas,
            Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.watches = watches;
        this.usage = usage;
        this.tx = tx;
        this.schedules = schedules;
        this.planner = planner;
        this.ownedJobs = ownedJobs;
        this.starts = starts;
        this.validator = validator;
        this.quotas = quotas;
        this.clock = clock;
    }

    /**
     * Replaces the job's definition ({@code PUT}): validated exactly as {@link JobService#create}; {@code ifMatch} must be the
     * version the caller read (its ETag), or nothing changes and the answer is 409. The pending run of the old
     * schedule is replaced by the first occurrence of the new one from now, in the same transaction (when both are
     * the same occurrence, the pending run is moved to the new due time instead). A PAUSED job stays paused, with
     * no pending run; a COMPLETED job whose new schedule has occurrences left is ACTIVE again. Runs already queued
     * or running finish under the definition their executor read when it claimed them.
     */
    JobView update(String owner, String jobId, String ifMatch, JobRequest req) {
        Instant now = clock.instant();
        OptionalLong wanted = JobValidator.parseIfMatch(ifMatch);
        Replacement replacement = replacement(owner, jobId, ifMatch, req, now);
        Job old = replacement.old();
        // Checked by replacement(): what the caller read, or (If-Match: *) the version there.
        long expected = old.version();
        JobValidator.Definition d = replacement.definition();
        Job asIs = replacement.asIs();
        if (d.secrets() == null && d.webhookSecret() == null && asIs.sameDefinition(old)) {
            // The definition it has already: nothing to write, and the version stays (a re-applied file changes
            // nothing, its pending run and jitter included). Secrets or a webhook secret sent again might differ
            // from the stored ones, which are not read back to compare: those are written as a change.
            return ownedJobs.view(old);
        }
        for (int i = 0; i < JobService.RETRIES; i++) {
            JobState state = old.state() == JobState.PAUSED ? JobState.PAUSED : JobState.ACTIVE;
            // Only for planning runs: the id, owner, attempts and jitter.
            Job draft =
                    d.job(jobId, owner, state, old.version() + 1, old.createdAt(), now, null, null, old.secretNames());
            Optional<Run> oldPending =
                    old.pendingRunId() == null ? Optional.empty() : runs.get(jobId, old.pendingRunId());
            List<Transactions.Write> items = new ArrayList<>();
            Run next = null;
            if (state == JobState.ACTIVE) {
                // The first occurrence left to run: the old pending run's own while it still waits, else one
                // that has no run yet (an occurrence that ran or is running is never scheduled again).
                Optional<Instant> t = Occurrences.firstFree(d.schedule(), Optional.of(d.first()), at -> {
                    String id = RunIds.forOccurrence(at);
                    return oldPending.filter(r -> r.runId().equals(id)).isPresent()
                            ? oldPending.get().state() != RunState.SCHEDULED
                            : runs.occupied(jobId, id);
                });
                if (t.isPresent()) {
                    next = planner.plan(draft, t.get(), now);
                    String id = next.runId();
                    items.add(
                            oldPending.filter(r -> r.runId().equals(id)).isPresent()
                                    ? runs.write(Change.of(Transition.RESCHEDULE, next, now))
                                    : runs.create(Change.of(Transition.SCHEDULE_OVER_CANCELLED, next, now)));
                } else {
                    state = JobState.COMPLETED;
                }
            }
            boolean replaced = next != null
                    && oldPending.isPresent()
                    && oldPending.get().runId().equals(next.runId());
            if (!replaced
                    && oldPending.filter(r -> r.state() == RunState.SCHEDULED).isPresent()) {
                items.add(runs.write(Change.of(Transition.CANCEL_SCHEDULED, jobId, old.pendingRunId(), now)
                        .withError("replaced by version " + (old.version() + 1) + " of the job")));
            }
            Job job = d.job(
                    jobId,
                    owner,
                    state,
                    old.version() + 1,
                    old.createdAt(),
                    now,
                    next == null ? null : next.runId(),
                    next == null ? null : next.scheduledAt(),
                    old.secretNames());
            items.add(0, jobs.replace(job, expected, old.pendingRunId()));
            int delta = d.peak() - SchedulePeak.of(old.schedule(), schedules);
            int quotaItem = -1;
            if (delta != 0) {
                quotaItem = items.size();
                items.add(usage.changeRate(owner, delta, quotas));
            }
            if (d.secrets() != null) {
                items.add(jobs.putSecrets(jobId, d.secrets()));
            }
            if (d.webhookSecret() != null || (d.webhook() == null && old.webhook() != null)) {
                // A new secret, or none left with the webhook gone; absent with a webhook kept: the current one.
                items.add(jobs.putWebhookSecret(jobId, d.webhook() == null ? null : d.webhookSecret()));
            }
            if (!Objects.equals(job.expect(), old.expect())) {
                // A new expectation is watched from now; one kept keeps its window.
                items.add(starts.armWatch(job, now).orElseGet(() -> watches.disarm(jobId)));
            }
            Transactions.Outcome o = tx.write(items);
            if (!o.won() && quotaItem >= 0 && o.failed(quotaItem)) {
                throw JobCreation.rateQuota(delta, usage.get(owner).rate(), quotas);
            }
            if (o.won()) {
                if (next != null) {
                    starts.dispatchSoon(List.of(next), now);
                }
                return ownedJobs.view(ownedJobs.owned(owner, jobId));
            }
            old = ownedJobs.owned(owner, jobId);
            if (old.state() == JobState.DELETED) {
                throw new NotFoundException("job " + jobId + " does not exist");
            }
            if (wanted.isEmpty()) {
                // "If-Match: *" asks for whichever version is current: apply the change to the new one.
                expected = old.version();
            } else if (old.version() != expected) {
                throw JobValidator.stale("job " + jobId + " changed to version " + old.version()
                        + " meanwhile: read it again and re-apply your change");
            }
            // Same version, but a sweep moved the pending run on meanwhile: plan again against the new one.
        }
        throw new IllegalStateException("job " + jobId + " kept changing during update; try again");
    }

    /**
     * What {@link #update} would make of the job's definition ({@code ?dryRun=true}), validated and checked against
     * {@code ifMatch} as it would be, written nowhere: the job as it is but for its definition.
     */
    JobView preview(String owner, String jobId, String ifMatch, JobRequest req) {
        return ownedJobs.view(
                replacement(owner, jobId, ifMatch, req, clock.instant()).asIs());
    }

    /** A job as read, its new definition as validated, and the job with that definition, otherwise as it is. */
    private record Replacement(Job old, JobValidator.Definition definition, Job asIs) {}

    private Replacement replacement(String owner, String jobId, String ifMatch, JobRequest req, Instant now) {
        OptionalLong wanted = JobValidator.parseIfMatch(ifMatch);
        Job old = ownedJobs.owned(owner, jobId);
        if (old.state() == JobState.DELETED) {
            throw new NotFoundException("job " + jobId + " does not exist");
        }
        long expected = wanted.orElse(old.version());
        if (old.version() != expected) {
            throw JobValidator.stale("job " + jobId + " is at version " + old.version() + ", not " + expected
                    + ": read it again and re-apply your change");
        }
        JobValidator.Definition d = validator.validate(owner, req, now, new HashMap<>(), old);
        Job asIs = d.job(
                jobId,
                owner,
                old.state(),
                old.version(),
                old.createdAt(),
                old.updatedAt(),
                old.pendingRunId(),
                old.nextRunAt(),
                old.secretNames());
        return new Replacement(old, d, asIs);
    }
}
