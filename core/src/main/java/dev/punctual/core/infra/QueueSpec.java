package dev.punctual.core.infra;

/**
 * The run queue and its dead-letter queue. {@code maxReceiveCount} is well above the largest {@code maxAttempts},
 * because a run's message is also received when a claim is lost to a live lease.
 */
public record QueueSpec(
        String name,
        String deadLetterName,
        int maxReceiveCount,
        int visibilityTimeoutSeconds,
        int messageRetentionSeconds) {}
