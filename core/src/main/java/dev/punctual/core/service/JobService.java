package dev.punctual.core.service;

import dev.punctual.core.binary.Binary;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.time.Instants;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/** Decides everything the jobs API does; the REST layer only maps HTTP to these calls. */
public final class JobService {
    /** How often a change lost to a concurrent one (a sweep moving the pending run on) is tried again. */
    static final int RETRIES = 10;

    private final JobRepository jobs;
    private final RunRepository runs;
    private final Schedules schedules;
    private final OwnedJobs ownedJobs;
    private final JobValidator validator;
    private final JobCreation creation;
    private final JobUpdate updates;
    private final IdempotentCreation idempotent;
    private final RunLogs logs;
    private final Clock clock;

    public JobService(
            JobRepository jobs,
            RunRepository runs,
            Schedules schedules,
            OwnedJobs ownedJobs,
            JobValidator validator,
            JobCreation creation,
            JobUpdate updates,
            IdempotentCreation idempotent,
            RunLogs logs,
            Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.schedules = schedules;
        this.ownedJobs = ownedJobs;
        this.validator = validator;
        this.creation = creation;
        this.updates = updates;
        this.idempotent = idempotent;
        this.logs = logs;
        this.clock = clock;
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
            Instant now = clock.instant();
            return creation.write(owner, List.of(validator.validate(owner, req, now, new HashMap<>())), now, ids)
                    .getFirst();
        };
        if (idempotencyKey == null) {
            return new Created<>(create.apply(null), false);
        }
        return idempotent.once(owner, idempotencyKey, req, 1, create, jobs -> ownedJobs.view(jobs.getFirst()));
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
                jobs -> new JobBatch(jobs.stream().map(ownedJobs::view).toList()));
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
        Instant now = clock.instant();
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
     * Replaces the job's definition ({@code PUT}), or answers 409 when {@code ifMatch} is not the version there
     * ({@link JobUpdate}).
     */
    public JobView update(String owner, String jobId, String ifMatch, JobRequest req) {
        return updates.update(owner, jobId, ifMatch, req);
    }

    /**
     * The next occurrences of a schedule that is not a job yet, validated exactly as {@link #create} validates it,
     * from {@code from} (default now).
     */
    public SchedulePreview preview(PreviewRequest req) {
        if (req == null) {
            throw ValidationException.of("body", "is required");
        }
        Instant now = clock.instant();
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
            schedule = schedules.parse(req.schedule(), now, "schedule");
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
        Job job = ownedJobs.owned(owner, jobId);
        Schedule schedule = schedules.parse(job.schedule(), job.createdAt(), "schedule");
        if (job.state() != JobState.ACTIVE) {
            return SchedulePreview.empty(schedule);
        }
        return SchedulePreview.of(schedule, clock.instant(), n);
    }

    public JobView get(String owner, String jobId) {
        return ownedJobs.view(ownedJobs.owned(owner, jobId));
    }

    public Page<JobView> list(String owner, Integer limit, String cursor) {
        return list(owner, limit, cursor, JobListing.ALL);
    }

    /** A page of the owner's jobs that {@code listing} asks for, oldest first (see {@link JobListing}). */
    public Page<JobView> list(String owner, Integer limit, String cursor, JobListing listing) {
        Predicate<Job> wanted = listing.resolve();
        int n = Cursors.pageSize(limit);
        var key = Cursors.decode(cursor, JobRepository.ownerCursor(owner, Keys::jobId));
        var page = jobs.listByOwner(owner, n, key);
        return new Page<>(
                page.items().stream().filter(wanted).map(ownedJobs::view).toList(), Cursors.encode(page.lastKey()));
    }

    /** What {@link #update} would make of the job ({@code ?dryRun=true}), written nowhere ({@link JobUpdate}). */
    public JobView previewUpdate(String owner, String jobId, String ifMatch, JobRequest req) {
        return updates.preview(owner, jobId, ifMatch, req);
    }

    /**
     * What {@link #create} would make of {@code req} ({@code ?dryRun=true}), validated as it would be, written
     * nowhere: it has no id, no runs, and uses no quota. A quota the creation would exceed is found only then.
     */
    public JobView previewCreate(String owner, JobRequest req) {
        Instant now = clock.instant();
        JobValidator.Definition d = validator.validate(owner, req, now, new HashMap<>());
        return JobView.of(d.job(null, owner, JobState.ACTIVE, 1, now, now, null, d.first(), List.of()), d.first());
    }

    /** A page of the job's runs that {@code listing} asks for, newest first (see {@link RunListing}). */
    public Page<RunView> runs(String owner, String jobId, Integer limit, String cursor, RunListing listing) {
        RunRepository.RunRange range = listing.resolve(clock.instant());
        Job job = ownedJobs.owned(owner, jobId);
        boolean paused = job.state() == JobState.PAUSED;
        var key = Cursors.decode(cursor, RunRepository.jobCursor(jobId, Keys::runId));
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
        var page = runs.listForJob(jobId, Cursors.pageSize(limit), key, range);
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
        return view(existing(jobId, runId), ownedJobs.owned(owner, jobId));
    }

    private Run existing(String jobId, String runId) {
        return ownedJobs.existingRun(jobId, runId);
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
