package dev.punctual.core.config;

import java.time.Duration;

/**
 * What a job's runs get where the job names nothing, and the most a job may ask: how failed attempts are spaced,
 * how often a schedule may fire, how many attempts a run has and how long each may take.
 *
 * @param retryBase the first retry's delay; each further one doubles it (with jitter)
 * @param retryCap the longest delay between attempts
 * @param minInterval the shortest interval a schedule may have
 * @param defaultMaxAttempts attempts a run has where its job names none
 * @param maxAttemptsLimit the most attempts a job may name
 * @param defaultTimeoutSeconds how long an attempt may take where its job names no timeout
 * @param maxTimeoutSeconds the longest timeout a job may name
 */
public record Runs(
        Duration retryBase,
        Duration retryCap,
        Duration minInterval,
        int defaultMaxAttempts,
        int maxAttemptsLimit,
        int defaultTimeoutSeconds,
        int maxTimeoutSeconds) {

    public static final Duration DEFAULT_RETRY_BASE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_RETRY_CAP = Duration.ofMinutes(5);
    public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofSeconds(5);
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    public static final int DEFAULT_MAX_ATTEMPTS_LIMIT = 10;
    public static final int DEFAULT_TIMEOUT_SECONDS = 3600;
    /** SQS cannot keep a message invisible for more than 12 h after its receipt; leave an hour of margin. */
    public static final int DEFAULT_MAX_TIMEOUT_SECONDS = 11 * 3600;
}
