package dev.punctual.core.config;

import dev.punctual.core.limits.Quotas;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.limits.RunningLimits;
import java.time.Duration;
import java.util.Objects;

/**
 * Every tunable of the scheduler, with the defaults docs/configuration.md documents. Deployables fill it from their
 * {@code punctual.*} configuration through {@link SettingsSource}; tests build it with {@link #builder()} and change
 * only what they exercise.
 */
public record Settings(
        String prefix,
        String bucket,
        int shards,
        int dispatchConcurrency,
        Duration sweepPeriod,
        Duration lookahead,
        Duration settle,
        Duration requeueAfter,
        Duration maxSweepBacklog,
        Duration lease,
        Duration heartbeat,
        Duration retryBase,
        Duration retryCap,
        Duration minInterval,
        int defaultMaxAttempts,
        int maxAttemptsLimit,
        int defaultTimeoutSeconds,
        int maxTimeoutSeconds,
        int executorConcurrency,
        long logCapBytes,
        long inlineLogBytes,
        Duration logChunkInterval,
        Duration killGrace,
        Duration shutdownGrace,
        Duration retention,
        Duration uploadUrlTtl,
        boolean emfMetrics,
        boolean jsonRunEvents,
        Quotas quotas,
        RunningLimits running,
        SandboxConfig sandbox,
        RunLimits limits,
        WebhookMode webhooks) {

    public static final String DEFAULT_PREFIX = "punctual";
    public static final int DEFAULT_SHARDS = 16;
    /** Jobs a dispatch (a sweep, or the API's sends at creation) moves on at once, each on a thread of its own. */
    public static final int DEFAULT_DISPATCH_CONCURRENCY = 64;

    public static final Duration DEFAULT_SWEEP_PERIOD = Duration.ofMinutes(1);
    /** Sweep period plus a minute of margin: a run is queued at least this long before it is due. */
    public static final Duration DEFAULT_LOOKAHEAD = Duration.ofMinutes(2);
    /** The watermark trails now by this much, so a bucket is re-queried until index lag cannot hide a run in it. */
    public static final Duration DEFAULT_SETTLE = Duration.ofMinutes(1);
    /**
     * A QUEUED or FAILED run whose message has not brought it back this long after it should have (lost by a
     * crash or an expired message), or a RUNNING run this long past its lease, is sent again by the sweeper.
     */
    public static final Duration DEFAULT_REQUEUE_AFTER = Duration.ofMinutes(10);

    public static final Duration DEFAULT_MAX_SWEEP_BACKLOG = Duration.ofDays(1);
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(20);
    public static final Duration DEFAULT_RETRY_BASE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_RETRY_CAP = Duration.ofMinutes(5);
    public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofSeconds(5);
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    public static final int DEFAULT_MAX_ATTEMPTS_LIMIT = 10;
    public static final int DEFAULT_TIMEOUT_SECONDS = 3600;
    /** SQS cannot keep a message invisible for more than 12 h after its receipt; leave an hour of margin. */
    public static final int DEFAULT_MAX_TIMEOUT_SECONDS = 11 * 3600;

    public static final int DEFAULT_EXECUTOR_CONCURRENCY = 4;
    public static final long DEFAULT_LOG_CAP_BYTES = 5L * 1024 * 1024;
    /**
     * A log up to this size is kept on the run item instead of in S3: an S3 PUT costs as much as eight DynamoDB
     * write units, and a kilobyte more on the item at most one. 0: every log goes to S3.
     */
    public static final long DEFAULT_INLINE_LOG_BYTES = 1024;
    /**
     * How often a running attempt's new output is shipped to S3 for the API to show (sooner once 1 MiB waits). A run
     * that ends sooner ships nothing; each chunk is one PUT. 0: off (the log shows once the attempt has ended).
     */
    public static final Duration DEFAULT_LOG_CHUNK_INTERVAL = Duration.ofSeconds(5);

    public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);
    public static final Duration DEFAULT_UPLOAD_URL_TTL = Duration.ofMinutes(15);

    public Settings {
        Objects.requireNonNull(prefix, "prefix");
        quotas = quotas == null ? Quotas.DEFAULTS : quotas;
        running = running == null ? RunningLimits.NONE : running;
        sandbox = sandbox == null ? SandboxConfig.DEFAULT : sandbox;
        limits = limits == null ? RunLimits.DEFAULT_MAXIMA : limits;
        if (!limits.complete()) {
            throw new IllegalArgumentException("every executor-wide run limit needs a value: " + limits);
        }
        if (!limits.problems(limits).isEmpty()) {
            throw new IllegalArgumentException("every executor-wide run limit must be at least 1: " + limits);
        }
        if (bucket == null || bucket.isBlank()) {
            bucket = prefix + "-artifacts";
        }
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be >= 1");
        }
        if (dispatchConcurrency < 1) {
            throw new IllegalArgumentException("dispatch concurrency must be >= 1");
        }
        if (lookahead.compareTo(sweepPeriod) <= 0) {
            throw new IllegalArgumentException("lookahead must exceed the sweep period, or runs would be found late");
        }
        if (logChunkInterval == null || logChunkInterval.isNegative()) {
            throw new IllegalArgumentException("log chunk interval must be 0 (off) or more");
        }
        if (heartbeat.compareTo(lease) >= 0) {
            throw new IllegalArgumentException("heartbeat must be shorter than the lease");
        }
    }

    public static Settings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder seeded with the defaults above. */
    public static final class Builder {
        private String prefix = DEFAULT_PREFIX;
        private String bucket;
        private int shards = DEFAULT_SHARDS;
        private int dispatchConcurrency = DEFAULT_DISPATCH_CONCURRENCY;
        private Duration sweepPeriod = DEFAULT_SWEEP_PERIOD;
        private Duration lookahead = DEFAULT_LOOKAHEAD;
        private Duration settle = DEFAULT_SETTLE;
        private Duration requeueAfter = DEFAULT_REQUEUE_AFTER;
        private Duration maxSweepBacklog = DEFAULT_MAX_SWEEP_BACKLOG;
        private Duration lease = DEFAULT_LEASE;
        private Duration heartbeat = DEFAULT_HEARTBEAT;
        private Duration retryBase = DEFAULT_RETRY_BASE;
        private Duration retryCap = DEFAULT_RETRY_CAP;
        private Duration minInterval = DEFAULT_MIN_INTERVAL;
        private int defaultMaxAttempts = DEFAULT_MAX_ATTEMPTS;
        private int maxAttemptsLimit = DEFAULT_MAX_ATTEMPTS_LIMIT;
        private int defaultTimeoutSeconds = DEFAULT_TIMEOUT_SECONDS;
        private int maxTimeoutSeconds = DEFAULT_MAX_TIMEOUT_SECONDS;
        private int executorConcurrency = DEFAULT_EXECUTOR_CONCURRENCY;
        private long logCapBytes = DEFAULT_LOG_CAP_BYTES;
        private long inlineLogBytes = DEFAULT_INLINE_LOG_BYTES;
        private Duration logChunkInterval = DEFAULT_LOG_CHUNK_INTERVAL;
        private Duration killGrace = DEFAULT_KILL_GRACE;
        private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
        private Duration retention = DEFAULT_RETENTION;
        private Duration uploadUrlTtl = DEFAULT_UPLOAD_URL_TTL;
        private boolean emfMetrics;
        private boolean jsonRunEvents;
        private Quotas quotas = Quotas.DEFAULTS;
        private RunningLimits running = RunningLimits.NONE;
        private SandboxConfig sandbox = SandboxConfig.DEFAULT;
        private RunLimits limits = RunLimits.DEFAULT_MAXIMA;
        private WebhookMode webhooks = WebhookMode.PUBLIC;

        public Builder prefix(String v) {
            prefix = v;
            return this;
        }

        public Builder bucket(String v) {
            bucket = v;
            return this;
        }

        public Builder shards(int v) {
            shards = v;
            return this;
        }

        public Builder dispatchConcurrency(int v) {
            dispatchConcurrency = v;
            return this;
        }

        public Builder sweepPeriod(Duration v) {
            sweepPeriod = v;
            return this;
        }

        public Builder lookahead(Duration v) {
            lookahead = v;
            return this;
        }

        public Builder settle(Duration v) {
            settle = v;
            return this;
        }

        public Builder requeueAfter(Duration v) {
            requeueAfter = v;
            return this;
        }

        public Builder maxSweepBacklog(Duration v) {
            maxSweepBacklog = v;
            return this;
        }

        public Builder lease(Duration v) {
            lease = v;
            return this;
        }

        public Builder heartbeat(Duration v) {
            heartbeat = v;
            return this;
        }

        public Builder retryBase(Duration v) {
            retryBase = v;
            return this;
        }

        public Builder retryCap(Duration v) {
            retryCap = v;
            return this;
        }

        public Builder minInterval(Duration v) {
            minInterval = v;
            return this;
        }

        public Builder defaultMaxAttempts(int v) {
            defaultMaxAttempts = v;
            return this;
        }

        public Builder maxAttemptsLimit(int v) {
            maxAttemptsLimit = v;
            return this;
        }

        public Builder defaultTimeoutSeconds(int v) {
            defaultTimeoutSeconds = v;
            return this;
        }

        public Builder maxTimeoutSeconds(int v) {
            maxTimeoutSeconds = v;
            return this;
        }

        public Builder executorConcurrency(int v) {
            executorConcurrency = v;
            return this;
        }

        public Builder logCapBytes(long v) {
            logCapBytes = v;
            return this;
        }

        public Builder inlineLogBytes(long v) {
            inlineLogBytes = v;
            return this;
        }

        public Builder logChunkInterval(Duration v) {
            logChunkInterval = v;
            return this;
        }

        public Builder killGrace(Duration v) {
            killGrace = v;
            return this;
        }

        public Builder shutdownGrace(Duration v) {
            shutdownGrace = v;
            return this;
        }

        public Builder retention(Duration v) {
            retention = v;
            return this;
        }

        public Builder uploadUrlTtl(Duration v) {
            uploadUrlTtl = v;
            return this;
        }
        /** Publish the meters ({@code metrics.Meters}) as CloudWatch Embedded Metric Format lines on stdout (AWS). Default off. */
        public Builder emfMetrics(boolean v) {
            emfMetrics = v;
            return this;
        }

        /** Executors print each run transition as a JSON line on stdout ({@code RunEvent}), not as log text. */
        public Builder jsonRunEvents(boolean v) {
            jsonRunEvents = v;
            return this;
        }
        /** Per-tenant limits ({@link Quotas}). */
        public Builder running(RunningLimits v) {
            running = v;
            return this;
        }

        public Builder quotas(Quotas v) {
            quotas = v;
            return this;
        }
        /** A user of its own for every run ({@code exec.Sandbox}); on by default (it takes root to be active). */
        public Builder sandbox(SandboxConfig v) {
            sandbox = v;
            return this;
        }
        /** The most a run may use, and what it gets where its job names no limit ({@link RunLimits}). */
        public Builder limits(RunLimits v) {
            limits = v;
            return this;
        }

        public Builder webhooks(WebhookMode v) {
            webhooks = v;
            return this;
        }

        public Settings build() {
            return new Settings(
                    prefix,
                    bucket,
                    shards,
                    dispatchConcurrency,
                    sweepPeriod,
                    lookahead,
                    settle,
                    requeueAfter,
                    maxSweepBacklog,
                    lease,
                    heartbeat,
                    retryBase,
                    retryCap,
                    minInterval,
                    defaultMaxAttempts,
                    maxAttemptsLimit,
                    defaultTimeoutSeconds,
                    maxTimeoutSeconds,
                    executorConcurrency,
                    logCapBytes,
                    inlineLogBytes,
                    logChunkInterval,
                    killGrace,
                    shutdownGrace,
                    retention,
                    uploadUrlTtl,
                    emfMetrics,
                    jsonRunEvents,
                    quotas,
                    running,
                    sandbox,
                    limits,
                    webhooks);
        }
    }
}
