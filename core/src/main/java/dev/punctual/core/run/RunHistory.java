package dev.punctual.core.run;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * What a run's item keeps of its past beyond its current attempt: the attempts whose facts a later claim replaced
 * (oldest first), and when a dead run was retried by hand ({@code redrivenAt}, null if never). The current attempt's
 * own facts are the run's fields.
 */
public record RunHistory(List<PastAttempt> attempts, Instant redrivenAt) {
    public static final RunHistory NONE = new RunHistory(List.of(), null);

    /**
     * The most past attempts a run keeps: a retry by hand trims to these, so a run retried again and again cannot
     * grow its item towards DynamoDB's 400 KB (a job's attempts are bounded by {@code maxAttempts} in between).
     */
    public static final int KEPT = 20;

    public RunHistory {
        attempts = attempts.stream()
                .sorted(Comparator.comparingInt(PastAttempt::attempt))
                .toList();
    }

    /**
     * One ended attempt: its start (null: it never launched), its end (null: its executor was lost, so nobody saw
     * it end), exit code, error and executor.
     */
    public record PastAttempt(
            int attempt, Instant startedAt, Instant finishedAt, Integer exitCode, String error, String executorId) {}
}
