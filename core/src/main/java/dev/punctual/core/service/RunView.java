package dev.punctual.core.service;

import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import java.util.List;
import java.util.Map;

/**
 * A run as the API shows it. {@code executorId} is the executor that holds or last held it. {@code args},
 * {@code env}: what a triggered run was asked to run with instead of its job's (absent otherwise); {@code priority}:
 * the lane a triggered or backfilled run was sent to instead of its job's (absent otherwise). {@code waiting}: why a run
 * that has not started waits (its tenant at its limit of running runs); absent once it is claimed.
 */
public record RunView(
        String runId,
        String jobId,
        String scheduledAt,
        String state,
        int attempt,
        int maxAttempts,
        Integer exitCode,
        String startedAt,
        String finishedAt,
        String executorId,
        String error,
        List<String> args,
        Map<String, String> env,
        String priority,
        String waiting) {

    /** This run shown in {@code state} (a view state such as {@link RunListing#PAUSED}). */
    RunView withState(String state) {
        return new RunView(
                runId,
                jobId,
                scheduledAt,
                state,
                attempt,
                maxAttempts,
                exitCode,
                startedAt,
                finishedAt,
                executorId,
                error,
                args,
                env,
                priority,
                waiting);
    }

    public static RunView of(Run r) {
        return new RunView(
                r.runId(),
                r.jobId(),
                JobView.str(r.scheduledAt()),
                r.state().name(),
                r.attempt(),
                r.maxAttempts(),
                r.exitCode(),
                JobView.str(r.startedAt()),
                JobView.str(r.finishedAt()),
                r.leaseOwner(),
                r.error(),
                r.overrides().args(),
                r.overrides().env().isEmpty() ? null : r.overrides().env(),
                r.overrides().priority() == null
                        ? null
                        : r.overrides().priority().label(),
                // Only while it has not started: its claim removes it, but a run cancelled or skipped unclaimed
                // keeps it.
                r.state().terminal() || r.state() == RunState.RUNNING ? null : r.waiting());
    }
}
