package dev.punctual.core.service;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunSender;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Dead letters: an owner's DEAD runs (through the runs table's sparse {@code byOwnerState} index) and their
 * re-drive. A retried run gets a fresh set of attempts (its job's {@code maxAttempts} more) while its attempt
 * number keeps counting, so it stays the fencing token.
 */
public final class DeadLetterService {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final RunSender queue;
    private final Clock clock;

    public DeadLetterService(JobRepository jobs, RunRepository runs, RunSender queue, Clock clock) {
        this.jobs = jobs;
        this.runs = runs;
        this.queue = queue;
        this.clock = clock;
    }

    /** The owner's runs in {@code state} (only {@code DEAD} for now), most recently finished first. */
    public Page<RunView> list(String owner, String state, Integer limit, String cursor) {
        if (state == null || state.isEmpty()) {
            throw new ValidationException(Rejection.MALFORMED, List.of(new FieldError("state", "is required (DEAD)")));
        }
        if (!RunState.DEAD.name().equals(state)) {
            throw new ValidationException(
                    Rejection.MALFORMED, List.of(new FieldError("state", "only DEAD is supported")));
        }
        int n = Cursors.pageSize(limit);
        var key = Cursors.decode(cursor, RunRepository.deadCursor(owner, Keys::jobId, Keys::runId));
        var page = runs.listDead(owner, n, key);
        Map<String, Job> named =
                jobs.getAll(page.items().stream().map(Run::jobId).distinct().toList());
        return new Page<>(
                page.items().stream()
                        .map(r -> RunView.of(
                                r,
                                named.containsKey(r.jobId())
                                        ? named.get(r.jobId()).name()
                                        : null))
                        .toList(),
                Cursors.encode(page.lastKey()));
    }

    /**
     * DEAD → QUEUED with a fresh set of attempts, then its message is sent (if the send fails, the due index
     * brings it back after {@code requeue-after}). 404 for an unknown job or run; 409 naming {@code runId} for a
     * run that is not DEAD, or {@code id} for a deleted or paused job.
     */
    public RunView retry(String owner, String jobId, String runId) {
        if (!Keys.jobId(jobId)) {
            throw new NotFoundException("not a job id");
        }
        Job job = jobs.get(jobId)
                .filter(j -> j.owner().equals(owner))
                .orElseThrow(() -> new NotFoundException("job " + jobId + " does not exist"));
        if (!Keys.runId(runId)) {
            throw new NotFoundException("not a run id");
        }
        Run run = runs.get(jobId, runId).orElseThrow(() -> new NotFoundException("run " + runId + " does not exist"));
        if (job.state() == JobState.DELETED || job.state() == JobState.PAUSED) {
            // The claim would cancel it at once: refuse rather than accept a retry that cannot run.
            throw new ValidationException(
                    Rejection.CONFLICT,
                    List.of(new FieldError(
                            "id", "job " + jobId + " is " + job.state().name().toLowerCase(java.util.Locale.ROOT))));
        }
        if (run.state() != RunState.DEAD) {
            throw notDead(run.state());
        }
        Instant now = clock.instant();
        RunRepository.Result redrive =
                runs.apply(Change.of(Transition.REDRIVE, run, now).withMaxAttempts(run.attempt() + job.maxAttempts()));
        if (!redrive.won()) {
            throw notDead(redrive.found() == null ? null : redrive.found().state());
        }
        queue.sendBatch(
                List.of(new RunMessage(
                        jobId,
                        runId,
                        run.scheduledAt(),
                        null,
                        run.overrides().priorityOr(job.firing().priority()))),
                now);
        return RunView.of(runs.get(jobId, runId).orElseThrow(), job.name());
    }

    private static ValidationException notDead(RunState state) {
        return new ValidationException(
                Rejection.CONFLICT,
                List.of(new FieldError("runId", "only a DEAD run can be retried; this one is " + state)));
    }
}
