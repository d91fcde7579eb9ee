package dev.punctual.core.service;

import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.binary.Binary;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.plan.Occurrences;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.tenant.IdempotencyRepository;
import dev.punctual.core.tenant.SchedulePeak;
import dev.punctual.core.time.Instants;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/** Decides everything the jobs API does; the REST layer only maps HTTP to these calls. */
public final class JobService {
    private static final System.Logger LOG = System.getLogger(JobService.class.getName());
    private static final int RETRIES = 10;

    private final JobValidator validator;
    private final JobCreation creation;
    private final IdempotentCreation idempotent;

    private final JobContext ctx;
    private final RunLogs logs;

    public JobService(
            JobContext ctx, BinaryService binaries, ArtifactStore store, IdempotencyRepository idempotencyKeys) {
        this.ctx = ctx;
        this.idempotent = new IdempotentCreation(idempotencyKeys, ctx);
        this.validator = new JobValidator(binaries, ctx.schedules(), ctx.settings());
        this.creation = new JobCreation(ctx);
        this.logs = new RunLogs(ctx, store);
    }

    /**
     * Validates and creates the job with its first run ({@link JobCreation}). A first run due before the next sweep
     * could reach it is dispatched here; one due a few seconds or more ahead (within the lookahead) has its message
     * sent first and is created QUEUED.
     */
    public JobView create(String owner, JobRequest req) {
        return create(owner, req, null).value();
    }

    /**
     * {@link #create(String, JobRequest)}, once per {@code idempotencyKey} (null: no key): a repeat with the same
     * key and body answers with the job the first one created ({@link IdempotentCreation}).
     */
    public Created<JobView> create(String owner, JobRequest req, String idempotencyKey) {
        Function<List<String>, JobView> create = ids -> {
            Instant now = ctx.clock().instant();
            return creation.write(owner, List.of(validator.validate(owner, req, now, new HashMap<>())), now, ids)
                    .getFirst();
        };
        if (idempotencyKey == null) {
            return new Created<>(create.apply(null), false);
        }
        return idempotent.once(owner, idempotencyKey, req, 1, create, jobs -> ctx.view(jobs.getFirst()));
    }

    /**
     * Validates every job of {@code req} and creates them all ({@link JobCreation}), or, when any is invalid, none:
     * one 422 naming each bad field as {@code jobs[i].<field>}. The tenant's quotas count the batch as a whole.
     */
    public JobBatch createAll(String owner, JobBatch.Request req) {
        return createAll(owner, req, null).value();
    }

    /** {@link #createAll(String, JobBatch.Request)}, once per {@code idempotencyKey}, as {@link #create} is. */
    public Created<JobBatch> createAll(String owner, JobBatch.Request req, String idempotencyKey) {
        checkBatchSize(req);
        Function<List<String>, JobBatch> create = ids -> createBatch(owner, req, ids);
        if (idempotencyKey == null) {
            return new Created<>(create.apply(null), false);
        }
        return idempotent.once(
                owner,
                idempotencyKey,
                req,
                req.jobs().size(),
                create,
                jobs -> new JobBatch(jobs.stream().map(ctx::view).toList()));
    }

    private static void checkBatchSize(JobBatch.Request req) {
        if (req == null) {
            throw ValidationException.of("body", "is required");
        }
        if (req.jobs() == null || req.jobs().isEmpty() || req.jobs().size() > JobBatch.MAX_JOBS) {
            throw new ValidationException(
                    Rejection.INVALID,
                    List.of(new FieldError(
                            "jobs",
                            req.jobs() == null || req.jobs().isEmpty()
                                    ? "is required: 1 to " + JobBatch.MAX_JOBS + " jobs"
                                    : "has " + req.jobs().size() + " jobs; at most " + JobBatch.MAX_JOBS
                                            + " per request")));
        }
    }

    private JobBatch createBatch(String owner, JobBatch.Request req, List<String> ids) {
        Instant now = ctx.clock().instant();
        // A binary named by many jobs of the batch is read once.
        Map<String, Binary> binaries = new HashMap<>();
        List<JobValidator.Definition> defs = new ArrayList<>();
        List<FieldError> errors = new ArrayList<>();
        Rejection kind = null;
        for (int i = 0; i < req.jobs().size(); i++) {
            try {
                defs.add(validator.validate(owner, req.jobs().get(i), now, binaries));
            } catch (ValidationException e) {
                kind = kind == null ? e.kind() : kind;
                for (FieldError f : e.errors()) {
                    errors.add(new FieldError("jobs[" + i + "]." + f.field(), f.message()));
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(kind, errors);
        }
        return new JobBatch(creation.write(owner, defs, now, ids));
    }

    /**
     * Replaces the job's definition ({@code PUT}): validated exactly as {@link #create}; {@code ifMatch} must be the
     * version the caller read (its ETag), or nothing changes and the answer is 409. The pending run of the old
     * schedule is replaced by the first occurrence of the new one from now, in the same transaction (when both are
     * the same occurrence, the pending run is moved to the new due time instead). A PAUSED job stays paused, with
     * no pending run; a COMPLETED job whose new schedule has occurrences left is ACTIVE again. Runs already queued
     * or running finish under the definition their executor read when it claimed them.
     */
    public JobView update(String owner, String jobId, String ifMatch, JobRequest req) {
        Instant now = ctx.clock().instant();
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
            return ctx.view(old);
        }
        for (int i = 0; i < RETRIES; i++) {
            JobState state = old.state() == JobState.PAUSED ? JobState.PAUSED : JobState.ACTIVE;
            // Only for planning runs: the id, owner, attempts and jitter.
            Job draft =
                    d.job(jobId, owner, state, old.version() + 1, old.createdAt(), now, null, null, old.secretNames());
            Optional<Run> oldPending =
                    old.pendingRunId() == null ? Optional.empty() : ctx.runs().get(jobId, old.pendingRunId());
            List<Transactions.Write> items = new ArrayList<>();
            Run next = null;
            if (state == JobState.ACTIVE) {
                // The first occurrence left to run: the old pending run's own while it still waits, else one
                // that has no run yet (an occurrence that ran or is running is never scheduled again).
                Optional<Instant> t = Occurrences.firstFree(d.schedule(), Optional.of(d.first()), at -> {
                    String id = RunIds.forOccurrence(at);
                    return oldPending.filter(r -> r.runId().equals(id)).isPresent()
                            ? oldPending.get().state() != RunState.SCHEDULED
                            : ctx.runs().occupied(jobId, id);
                });
                if (t.isPresent()) {
                    next = ctx.planner().plan(draft, t.get(), now);
                    String id = next.runId();
                    items.add(
                            oldPending.filter(r -> r.runId().equals(id)).isPresent()
                                    ? ctx.runs().write(Change.of(Transition.RESCHEDULE, next, now))
                                    : ctx.runs().create(Change.of(Transition.SCHEDULE_OVER_CANCELLED, next, now)));
                } else {
                    state = JobState.COMPLETED;
                }
            }
            boolean replaced = next != null
                    && oldPending.isPresent()
                    && oldPending.get().runId().equals(next.runId());
            if (!replaced
                    && oldPending.filter(r -> r.state() == RunState.SCHEDULED).isPresent()) {
                items.add(ctx.runs()
                        .write(Change.of(Transition.CANCEL_SCHEDULED, jobId, old.pendingRunId(), now)
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
            items.add(0, ctx.jobs().replace(job, expected, old.pendingRunId()));
            int delta = d.peak() - SchedulePeak.of(old.schedule(), ctx.schedules());
            int quotaItem = -1;
            if (delta != 0) {
                quotaItem = items.size();
                items.add(ctx.usage().changeRate(owner, delta, ctx.settings().quotas()));
            }
            if (d.secrets() != null) {
                items.add(ctx.jobs().putSecrets(jobId, d.secrets()));
            }
            if (d.webhookSecret() != null || (d.webhook() == null && old.webhook() != null)) {
                // A new secret, or none left with the webhook gone; absent with a webhook kept: the current one.
                items.add(ctx.jobs().putWebhookSecret(jobId, d.webhook() == null ? null : d.webhookSecret()));
            }
            if (!Objects.equals(job.expect(), old.expect())) {
                // A new expectation is watched from now; one kept keeps its window.
                items.add(ctx.armWatch(job, now).orElseGet(() -> ctx.watches().disarm(jobId)));
            }
            Transactions.Outcome o = ctx.tx().write(items);
            if (!o.won() && quotaItem >= 0 && o.failed(quotaItem)) {
                throw JobCreation.rateQuota(
                        delta, ctx.usage().get(owner).rate(), ctx.settings().quotas());
            }
            if (o.won()) {
                if (next != null) {
                    ctx.dispatchSoon(List.of(next), now);
                }
                return ctx.view(ctx.owned(owner, jobId));
            }
            old = ctx.owned(owner, jobId);
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
     * The next occurrences of a schedule that is not a job yet, validated exactly as {@link #create} validates it,
     * from {@code from} (default now).
     */
    public SchedulePreview preview(PreviewRequest req) {
        if (req == null) {
            throw ValidationException.of("body", "is required");
        }
        Instant now = ctx.clock().instant();
        List<FieldError> errors = new ArrayList<>();
        int count = JobValidator.range(
                errors, "count", req.count(), SchedulePreview.DEFAULT_COUNT, 1, SchedulePreview.MAX_COUNT);
        Instant from = now;
        if (req.from() != null) {
            from = Instants.parseOrNull(req.from());
            if (from == null) {
                errors.add(new FieldError(
                        "from", "is not an ISO-8601 instant with an offset (e.g. 2030-01-01T09:00:00Z)"));
            } else if (!Instants.supported(from)) {
                errors.add(new FieldError("from", Instants.OUT_OF_RANGE));
            }
        }
        Schedule schedule = null;
        try {
            schedule = ctx.schedules().parse(req.schedule(), now, "schedule");
        } catch (ValidationException e) {
            errors.addAll(e.errors());
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(Rejection.INVALID, errors);
        }
        return SchedulePreview.of(schedule, from, count);
    }

    /**
     * A job's next occurrences from now, computed as the dispatcher computes them (its stored schedule parsed at
     * its creation time). A job that will not run again (completed, deleted) has none.
     */
    public SchedulePreview next(String owner, String jobId, Integer count) {
        int n = count == null ? SchedulePreview.DEFAULT_COUNT : count;
        if (n < 1 || n > SchedulePreview.MAX_COUNT) {
            throw new ValidationException(
                    Rejection.MALFORMED,
                    List.of(new FieldError("count", "must be between 1 and " + SchedulePreview.MAX_COUNT)));
        }
        Job job = ctx.owned(owner, jobId);
        Schedule schedule = ctx.schedules().parse(job.schedule(), job.createdAt(), "schedule");
        if (job.state() != JobState.ACTIVE) {
            return SchedulePreview.empty(schedule);
        }
        return SchedulePreview.of(schedule, ctx.clock().instant(), n);
    }

    public JobView get(String owner, String jobId) {
        return ctx.view(ctx.owned(owner, jobId));
    }

    public Page<JobView> list(String owner, Integer limit, String cursor) {
        return list(owner, limit, cursor, JobListing.ALL);
    }

    /** A page of the owner's jobs that {@code listing} asks for, oldest first (see {@link JobListing}). */
    public Page<JobView> list(String owner, Integer limit, String cursor, JobListing listing) {
        Predicate<Job> wanted = listing.resolve();
        int n = Cursors.pageSize(limit);
        var key = Cursors.decode(
                cursor,
                Map.<String, Predicate<String>>of(
                        Resources.JOB_ID,
                        Keys::jobId,
                        Resources.OWNER,
                        owner::equals,
                        Resources.OWNER_SORT,
                        sort -> true));
        var page = ctx.jobs().listByOwner(owner, n, key);
        return new Page<>(page.items().stream().filter(wanted).map(ctx::view).toList(), Cursors.encode(page.lastKey()));
    }

    /**
     * Deletes the job and cancels its pending run atomically. Runs already in the queue are stopped by their claim,
     * which checks the job (in its transaction, or right after it). A run claimed ahead of its instant whose check
     * came before this delete starts at its instant: the delete answers only after that ({@link
     * JobContext#awaitCommittedStarts}), so no run of the job starts after the answer. Deleting a deleted job is a
     * no-op.
     */
    public void delete(String owner, String jobId) {
        for (int i = 0; i < RETRIES; i++) {
            Job job = ctx.owned(owner, jobId);
            if (job.state() == JobState.DELETED) {
                // Deleted by a request still waiting for a run (below): this one answers no sooner.
                ctx.awaitCommittedStarts(jobId);
                return;
            }
            Instant now = ctx.clock().instant();
            List<Transactions.Write> items = new ArrayList<>();
            items.add(ctx.jobs().markDeleted(jobId, owner, job.pendingRunId(), now));
            items.add(ctx.usage().removeJob(owner, SchedulePeak.of(job.schedule(), ctx.schedules())));
            if (!job.secretNames().isEmpty()) {
                items.add(ctx.jobs().putSecrets(jobId, Map.of()));
            }
            if (job.webhook() != null) {
                items.add(ctx.jobs().putWebhookSecret(jobId, null));
            }
            if (job.expect() != null) {
                items.add(ctx.watches().disarm(jobId));
            }
            ctx.cancelPending(job, now, "job deleted").ifPresent(items::add);
            if (ctx.tx().write(items).won()) {
                ctx.cancelUnstarted(jobId, now, "job deleted");
                ctx.awaitCommittedStarts(jobId);
                return;
            }
            // A sweep moved the pending run on meanwhile: read again and retry against the new one.
        }
        throw new IllegalStateException("job " + jobId + " kept changing during delete; try again");
    }

    /**
     * What {@link #update} would make of the job's definition ({@code ?dryRun=true}), validated and checked against
     * {@code ifMatch} as it would be, written nowhere: the job as it is but for its definition.
     */
    public JobView previewUpdate(String owner, String jobId, String ifMatch, JobRequest req) {
        return ctx.view(
                replacement(owner, jobId, ifMatch, req, ctx.clock().instant()).asIs());
    }

    /**
     * What {@link #create} would make of {@code req} ({@code ?dryRun=true}), validated as it would be, written
     * nowhere: it has no id, no runs, and uses no quota. A quota the creation would exceed is found only then.
     */
    public JobView previewCreate(String owner, JobRequest req) {
        Instant now = ctx.clock().instant();
        JobValidator.Definition d = validator.validate(owner, req, now, new HashMap<>());
        return JobView.of(d.job(null, owner, JobState.ACTIVE, 1, now, now, null, d.first(), List.of()), d.first());
    }

    /** A job as read, its new definition as validated, and the job with that definition, otherwise as it is. */
    private record Replacement(Job old, JobValidator.Definition definition, Job asIs) {}

    private Replacement replacement(String owner, String jobId, String ifMatch, JobRequest req, Instant now) {
        OptionalLong wanted = JobValidator.parseIfMatch(ifMatch);
        Job old = ctx.owned(owner, jobId);
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

    /** A page of the job's runs that {@code listing} asks for, newest first (see {@link RunListing}). */
    public Page<RunView> runs(String owner, String jobId, Integer limit, String cursor, RunListing listing) {
        RunRepository.RunRange range = listing.resolve(ctx.clock().instant());
        Job job = ctx.owned(owner, jobId);
        boolean paused = job.state() == JobState.PAUSED;
        var key = Cursors.decode(
                cursor,
                Map.<String, Predicate<String>>of(Resources.JOB_ID, jobId::equals, Resources.RUN_ID, Keys::runId));
        Set<RunState> asked = range.states();
        boolean asksPaused = listing.asksPaused();
        Predicate<Run> shown = r -> true;
        if (asksPaused || (paused && !asked.isEmpty())) {
            // PAUSED is how a paused job's unstarted runs show: asked for, those; asked for by their own state,
            // not those.
            if (!paused && asked.isEmpty()) {
                return new Page<>(List.of(), null);
            }
            Set<RunState> stored = EnumSet.noneOf(RunState.class);
            stored.addAll(asked);
            if (paused && asksPaused) {
                stored.addAll(RunListing.UNSTARTED);
            }
            range = new RunRepository.RunRange(range.from(), range.to(), stored);
            shown = r -> RunListing.shows(r, paused, asked, asksPaused);
        }
        var page = ctx.runs().listForJob(jobId, Cursors.pageSize(limit), key, range);
        return new Page<>(
                page.items().stream().filter(shown).map(r -> view(r, job)).toList(), Cursors.encode(page.lastKey()));
    }

    /** The run of {@code job} as the API shows it; one of a paused job that has not started shows {@link RunListing#PAUSED}. */
    static RunView view(Run r, Job job) {
        RunView v = RunView.of(r, job.name());
        return job.state() == JobState.PAUSED && RunListing.UNSTARTED.contains(r.state())
                ? v.withState(RunListing.PAUSED)
                : v;
    }

    /** One run of the job, read strongly: what an attempt wrote last is what is shown. */
    public RunView run(String owner, String jobId, String runId) {
        return view(existing(jobId, runId), ctx.owned(owner, jobId));
    }

    private Run existing(String jobId, String runId) {
        return ctx.existingRun(jobId, runId);
    }

    /** The captured output of the run's latest attempt. */
    public String log(String owner, String jobId, String runId) {
        return log(owner, jobId, runId, null);
    }

    /**
     * The output of attempt {@code attempt} of the run (null: its latest) as far as it is known: the whole log of an
     * attempt that has ended, what was shipped so far of one that runs ({@link RunLogs}).
     */
    public String log(String owner, String jobId, String runId, Integer attempt) {
        return logs.read(owner, jobId, runId, attempt, null, null).text();
    }

    /** The captured output from an offset on, waiting for more up to {@code waitSeconds} ({@link RunLogs#read}). */
    public RunLogs.Slice log(
            String owner, String jobId, String runId, Integer attempt, Long offset, Integer waitSeconds) {
        return logs.read(owner, jobId, runId, attempt, offset, waitSeconds);
    }
}
