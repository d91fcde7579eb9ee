package dev.punctual.core.service;

import dev.punctual.core.dispatch.Dispatcher;
import dev.punctual.core.error.QuotaExceededException;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.limits.Quotas;
import dev.punctual.core.plan.Occurrences;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.Transition;
import dev.punctual.core.run.WatchRepository;
import dev.punctual.core.tenant.UsageRepository;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Writes new jobs with their first runs, one or a batch, without a transaction: a transaction's writes cost twice a
 * plain write's, and the create transaction was 10 of a one-shot run's 14 write units. The writes come in an order
 * that leaves nothing a reader can trip on wherever they stop:
 * <ol>
 * <li>the tenant's usage is reserved (its quotas checked, one conditional update for the whole batch);</li>
 * <li>the messages of first runs due soon go out ({@link dev.punctual.core.dispatch.Dispatcher#sendBeforeWrite});</li>
 * <li>the runs are written, then the secrets, then the jobs (BatchWriteItem, 25 a call): a job is never seen
 *     without its run or its secrets.</li>
 * </ol>
 * A failure seen on the way undoes what was written (jobs, runs, the reservation) and is thrown: nothing was
 * created. What a writer that dies half-way, or whose undo fails too (the store failing throughout), leaves: runs
 * without their job, shown nowhere (runs are read through their job), which an executor looks at again for a minute
 * past their due time (the job's write may be slow) and then withdraws, its binary never started; messages sent
 * ahead for runs never written, dropped after a
 * few looks; and its reservation: the tenant's usage counts those jobs until an operator corrects it.
 */
public final class JobCreation {
    private static final System.Logger LOG = System.getLogger(JobCreation.class.getName());

    /** Seconds a client over its job quota is told to wait: only a deletion frees a slot, so this is a pace. */
    static final long JOB_QUOTA_RETRY_AFTER = 60;

    private final JobRepository jobs;
    private final RunRepository runs;
    private final WatchRepository watches;
    private final UsageRepository usage;
    private final Dispatcher dispatcher;
    private final RunPlanner planner;
    private final JobStarts starts;
    private final Quotas quotas;
    private final Duration lookahead;

    public JobCreation(
            JobRepository jobs,
            RunRepository runs,
            WatchRepository watches,
            UsageRepository usage,
            Dispatcher dispatcher,
            RunPlanner planner,
            JobStarts starts,
            Quotas quotas,
            Duration lookahead) {
        this.jobs = jobs;
        this.runs = runs;
        this.watches = watches;
        this.usage = usage;
        this.dispatcher = dispatcher;
        this.planner = planner;
        this.starts = starts;
        this.quotas = quotas;
        this.lookahead = lookahead;
    }

    /**
     * Creates the validated jobs {@code defs} of {@code owner} under the ids {@code jobIds} (null: new ones); their
     * views, in order.
     */
    List<JobView> write(String owner, List<JobValidator.Definition> defs, Instant now, List<String> jobIds) {
        long rate = 0;
        for (JobValidator.Definition d : defs) {
            if (d.peak() > quotas.runsPerMinute()) {
                throw rateQuota(d.peak(), 0, quotas);
            }
            rate += d.peak();
        }
        if (rate > quotas.runsPerMinute()) {
            throw rateQuota(rate, 0, quotas);
        }
        List<Job> drafts = new ArrayList<>();
        List<Run> firsts = new ArrayList<>();
        for (int i = 0; i < defs.size(); i++) {
            JobValidator.Definition d = defs.get(i);
            String jobId = jobIds == null ? Ids.next("job") : jobIds.get(i);
            Job draft = d.job(jobId, owner, JobState.ACTIVE, 1, now, now, null, null, List.of());
            drafts.add(draft);
            firsts.add(planner.plan(draft, d.first(), now));
        }
        if (!usage.reserve(owner, defs.size(), rate, quotas)) {
            throw quotaRefusal(owner, defs.size(), rate, quotas);
        }
        Set<Integer> sent = dispatcher.sendBeforeWrite(
                firsts, drafts.stream().map(Job::firing).toList(), now.plus(lookahead));

        List<Change> runWrites = new ArrayList<>();
        List<Run> written = new ArrayList<>();
        List<Job> jobs = new ArrayList<>();
        Map<String, Map<String, String>> secrets = new HashMap<>();
        Map<String, String> webhookSecrets = new HashMap<>();
        List<Transactions.Write> watches = new ArrayList<>();
        List<Run> pending = new ArrayList<>();
        List<JobView> views = new ArrayList<>();
        for (int i = 0; i < defs.size(); i++) {
            JobValidator.Definition d = defs.get(i);
            Job draft = drafts.get(i);
            Run first = firsts.get(i);
            boolean ahead = sent.contains(i);
            runWrites.add(Change.of(ahead ? Transition.ENQUEUE : Transition.SCHEDULE, first, now));
            written.add(first);
            // Sent: the job starts where dispatching would have left it, on its next occurrence (none: completed).
            Optional<Run> next = ahead
                    ? Occurrences.firstFree(d.schedule(), d.schedule().next(first.occurrence()), t -> false)
                            .map(t -> planner.plan(draft, t, now))
                    : Optional.empty();
            next.ifPresent(n -> {
                runWrites.add(Change.of(Transition.SCHEDULE, n, now));
                written.add(n);
            });
            Run waiting = ahead ? next.orElse(null) : first;
            if (waiting != null) {
                pending.add(waiting);
            }
            jobs.add(
                    waiting == null
                            ? draft.toBuilder().state(JobState.COMPLETED).build()
                            : pendingOn(draft, waiting));
            if (d.secrets() != null && !d.secrets().isEmpty()) {
                secrets.put(draft.id(), d.secrets());
            }
            if (d.webhook() != null) {
                webhookSecrets.put(draft.id(), d.webhookSecret());
            }
            // The answer shows the job with its first run to come (ACTIVE, nextRunAt its due time), however it was
            // written: the same answer as when the run is dispatched after the write, which moves the job on too.
            views.add(JobView.of(ahead ? pendingOn(draft, first) : jobs.getLast()));
        }
        try {
            runs.createAll(runWrites);
            // Before the jobs, as their runs: a watch whose job was never written is ended by its first check.
            jobs.forEach(j -> starts.armWatch(j, now).ifPresent(watches::add));
            this.watches.armAll(watches);
            this.jobs.insertAll(jobs, secrets, webhookSecrets);
        } catch (RuntimeException e) {
            undo(owner, jobs, written, rate, e);
            throw e;
        }
        starts.dispatchSoon(pending, now);
        return views;
    }

    /** How many times each step of an undo is tried, and the first wait between tries (doubled each time). */
    static final int UNDO_TRIES = 5;

    static final Duration UNDO_FIRST_WAIT = Duration.ofMillis(100);

    /**
     * Removes what a failed creation may have written, and gives its reservation back. Each step is tried again a
     * few times with backoff (a store that failed the creation may fail the undo too), whatever the one before did;
     * what still fails is added to {@code cause}.
     */
    private void undo(String owner, List<Job> jobs, List<Run> runs, long rate, RuntimeException cause) {
        LOG.log(Level.WARNING, "creating " + jobs.size() + " jobs of " + owner + " failed; undoing", cause);
        List<Runnable> steps = List.of(
                () -> this.jobs.deleteNew(jobs.stream().map(Job::id).toList()),
                () -> this.runs.deleteNew(runs),
                () -> usage.release(owner, jobs.size(), rate));
        for (Runnable step : steps) {
            Duration wait = UNDO_FIRST_WAIT;
            for (int tries = 1; ; tries++) {
                try {
                    step.run();
                    break;
                } catch (RuntimeException e) {
                    if (tries == UNDO_TRIES) {
                        cause.addSuppressed(e);
                        break;
                    }
                }
                try {
                    Thread.sleep(wait.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                wait = wait.multipliedBy(2);
            }
        }
    }

    /** {@code draft} (ACTIVE, version 1) waiting for {@code run}: its pending run and next due time. */
    private static Job pendingOn(Job draft, Run run) {
        return draft.toBuilder()
                .pendingRunId(run.runId())
                .nextRunAt(run.scheduledAt())
                .build();
    }

    /** Why the reservation was refused: the job count, or the scheduled rate. */
    private QuotaExceededException quotaRefusal(String owner, int adding, long rate, Quotas q) {
        UsageRepository.Usage u = usage.get(owner);
        if (u.jobs() + adding > q.jobs()) {
            return new QuotaExceededException(
                    "jobs",
                    "this tenant has " + u.jobs() + " jobs" + (adding == 1 ? "" : " and this request adds " + adding)
                            + ", its quota is " + q.jobs() + ": delete jobs it no longer needs",
                    JOB_QUOTA_RETRY_AFTER);
        }
        return rateQuota(rate, u.rate(), q);
    }

    static QuotaExceededException rateQuota(long adding, long current, Quotas q) {
        return new QuotaExceededException(
                "runsPerMinute",
                "this schedule adds " + adding
                        + " starts per minute to the tenant's " + current + "; its quota is " + q.runsPerMinute()
                        + " (the sum of every job's busiest minute)",
                JOB_QUOTA_RETRY_AFTER);
    }
}
