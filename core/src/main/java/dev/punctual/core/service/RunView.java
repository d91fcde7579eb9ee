package dev.punctual.core.service;

import dev.punctual.core.run.Run;

/** A run as the API shows it. {@code executorId} is the executor that holds or last held it. */
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
        String error) {

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
                r.error());
    }
}
