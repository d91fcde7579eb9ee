package dev.punctual.core.service;

import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunHistory;
import dev.punctual.core.run.RunState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A run as the API shows it. {@code executorId} is the executor that holds or last held it. {@code args},
 * {@code env}: what a triggered run was asked to run with instead of its job's (absent otherwise); {@code priority}:
 * the lane a triggered or backfilled run was sent to instead of its job's (absent otherwise). {@code waiting}: why a run
 * that has not started waits (its tenant at its limit of running runs); absent once it is claimed. {@code origin}:
 * how it came about ({@link #SCHEDULED}, {@link #TRIGGERED}, {@link #BACKFILLED}, {@link #REDRIVEN}); {@code lateness}:
 * seconds from due to its first start, where that means something. {@code attempts}: the attempts before the current
 * one (a lost executor's attempt, which wrote no outcome, is missing from them).
 */
public record RunView(
        String runId,
        String jobId,
        String jobName,
        String scheduledAt,
        String state,
        String origin,
        int attempt,
        int maxAttempts,
        Integer exitCode,
        String createdAt,
        String queuedAt,
        String launchedAt,
        String startedAt,
        String finishedAt,
        Double lateness,
        String executorId,
        String error,
        List<String> args,
        Map<String, String> env,
        String priority,
        String waiting,
        List<AttemptView> attempts) {

    /** How a run came about ({@code origin}). */
    public static final String SCHEDULED = "SCHEDULED";

    public static final String TRIGGERED = "TRIGGERED";
    /** Created after its due time: by a backfill, or a catch-up after a pause or an outage. */
    public static final String BACKFILLED = "BACKFILLED";
    /** A dead run retried by hand. */
    public static final String REDRIVEN = "REDRIVEN";

    /** An earlier attempt of the run, as its history kept it ({@link RunHistory.PastAttempt}). */
    public record AttemptView(
            int attempt, String startedAt, String finishedAt, Integer exitCode, String error, String executorId) {}

    /** This run shown in {@code state} (a view state such as {@link RunListing#PAUSED}). */
    RunView withState(String state) {
        return new RunView(
                runId,
                jobId,
                jobName,
                scheduledAt,
                state,
                origin,
                attempt,
                maxAttempts,
                exitCode,
                createdAt,
                queuedAt,
                launchedAt,
                startedAt,
                finishedAt,
                lateness,
                executorId,
                error,
                args,
                env,
                priority,
                waiting,
                attempts);
    }

    /** The run of the job named {@code jobName} (null: not known to the caller). */
    public static RunView of(Run r, String jobName) {
        String origin = origin(r);
        return new RunView(
                r.runId(),
                r.jobId(),
                jobName,
                JobView.str(r.scheduledAt()),
                r.state().name(),
                origin,
                r.attempt(),
                r.maxAttempts(),
                r.exitCode(),
                JobView.str(r.createdAt()),
                JobView.str(r.queuedAt()),
                JobView.str(r.launchedAt()),
                JobView.str(r.startedAt()),
                JobView.str(r.finishedAt()),
                lateness(r, origin),
                r.leaseOwner(),
                r.error(),
                r.overrides().args(),
                r.overrides().env().isEmpty() ? null : r.overrides().env(),
                r.overrides().priority() == null
                        ? null
                        : r.overrides().priority().label(),
                // Only while it has not started: its claim removes it, but a run cancelled or skipped unclaimed
                // keeps it.
                r.state().terminal() || r.state() == RunState.RUNNING ? null : r.waiting(),
                // The attempts before the current one: the current one's facts are the run's own (a FAILED run's
                // last attempt is kept in its history too, for the retry that will replace them).
                r.history().attempts().stream()
                        .filter(a -> a.attempt() < r.attempt())
                        .map(a -> new AttemptView(
                                a.attempt(),
                                JobView.str(a.startedAt()),
                                JobView.str(a.finishedAt()),
                                a.exitCode(),
                                a.error(),
                                a.executorId()))
                        .toList());
    }

    private static String origin(Run r) {
        if (r.history().redrivenAt() != null) {
            return REDRIVEN;
        }
        if (r.runId().contains("-t")) {
            return TRIGGERED;
        }
        return r.createdAt() != null && r.createdAt().isAfter(r.scheduledAt()) ? BACKFILLED : SCHEDULED;
    }

    /**
     * Seconds from its due time to its first attempt's start, for a run that was due when it was made (scheduled or
     * triggered); null otherwise: a backfilled run was created late on purpose, and a re-driven one was due long
     * before it was retried, so either would count a delay nobody waited for.
     */
    private static Double lateness(Run r, String origin) {
        if (!origin.equals(SCHEDULED) && !origin.equals(TRIGGERED)) {
            return null;
        }
        Instant first = r.attempt() == 1
                ? r.startedAt()
                : r.history().attempts().stream()
                        .filter(a -> a.attempt() == 1)
                        .map(RunHistory.PastAttempt::startedAt)
                        .findFirst()
                        .orElse(null);
        return first == null ? null : Duration.between(r.scheduledAt(), first).toMillis() / 1000.0;
    }
}
