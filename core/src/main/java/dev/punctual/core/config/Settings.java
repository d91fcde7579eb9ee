package dev.punctual.core.config;

import dev.punctual.core.limits.Quotas;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.limits.RunningLimits;
import java.time.Duration;
import java.util.Objects;

/**
 * Every tunable of the scheduler, in records by what they govern; each record holds its defaults (the ones
 * docs/configuration.md documents) and checks its own values. Deployables fill it from their {@code punctual.*}
 * configuration through {@link SettingsSource}; tests build it with {@link #builder()} and change only what they
 * exercise.
 *
 * @param deployment what resources are called, and the due index's shards
 * @param sweep how the sweeper finds due runs and sends them on
 * @param execution how an executor holds and runs what it claims
 * @param runs what a job's runs get where it names nothing, and the most it may ask
 * @param storage what is kept of runs and binaries, and for how long
 * @param publishing metrics, run events and webhooks
 * @param quotas per-tenant quotas
 * @param running per-tenant limits on runs RUNNING at once
 * @param sandbox how runs are isolated from the executor and each other
 * @param limits the most a run may use, and what it gets where its job names no limit: complete, every value at
 *     least 1, as executors enforce them
 */
public record Settings(
        Deployment deployment,
        Sweep sweep,
        Execution execution,
        Runs runs,
        Storage storage,
        Publishing publishing,
        Quotas quotas,
        RunningLimits running,
        SandboxConfig sandbox,
        RunLimits limits) {

    public Settings {
        Objects.requireNonNull(deployment, "deployment");
        Objects.requireNonNull(sweep, "sweep");
        Objects.requireNonNull(execution, "execution");
        Objects.requireNonNull(runs, "runs");
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(publishing, "publishing");
        quotas = quotas == null ? Quotas.DEFAULTS : quotas;
        running = running == null ? RunningLimits.NONE : running;
        sandbox = sandbox == null ? SandboxConfig.DEFAULT : sandbox;
        limits = limits == null ? RunLimits.DEFAULT_MAXIMA : limits;
        // RunLimits is also a job's own, partial limits; only the executor-wide maxima must name every one.
        if (!limits.complete()) {
            throw new IllegalArgumentException("every executor-wide run limit needs a value: " + limits);
        }
        if (!limits.problems(limits).isEmpty()) {
            throw new IllegalArgumentException("every executor-wide run limit must be at least 1: " + limits);
        }
    }

    public static Settings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder seeded with the defaults, one setter a key: configuration and tests set single values, and the
     * records are made (and check their values) at {@link #build()}.
     */
    public static final class Builder {
        private String prefix = Deployment.DEFAULT_PREFIX;
        private String bucket;
        private int shards = Deployment.DEFAULT_SHARDS;
        private int dispatchConcurrency = Sweep.DEFAULT_DISPATCH_CONCURRENCY;
        private Duration sweepPeriod = Sweep.DEFAULT_PERIOD;
        private Duration lookahead = Sweep.DEFAULT_LOOKAHEAD;
        private Duration settle = Sweep.DEFAULT_SETTLE;
        private Duration requeueAfter = Sweep.DEFAULT_REQUEUE_AFTER;
        private Duration maxSweepBacklog = Sweep.DEFAULT_MAX_BACKLOG;
        private Duration lease = Execution.DEFAULT_LEASE;
        private Duration heartbeat = Execution.DEFAULT_HEARTBEAT;
        private Duration retryBase = Runs.DEFAULT_RETRY_BASE;
        private Duration retryCap = Runs.DEFAULT_RETRY_CAP;
        private Duration minInterval = Runs.DEFAULT_MIN_INTERVAL;
        private int defaultMaxAttempts = Runs.DEFAULT_MAX_ATTEMPTS;
        private int maxAttemptsLimit = Runs.DEFAULT_MAX_ATTEMPTS_LIMIT;
        private int defaultTimeoutSeconds = Runs.DEFAULT_TIMEOUT_SECONDS;
        private int maxTimeoutSeconds = Runs.DEFAULT_MAX_TIMEOUT_SECONDS;
        private int executorConcurrency = Execution.DEFAULT_CONCURRENCY;
        private long logCapBytes = Storage.DEFAULT_LOG_CAP_BYTES;
        private long inlineLogBytes = Storage.DEFAULT_INLINE_LOG_BYTES;
        private Duration logChunkInterval = Storage.DEFAULT_LOG_CHUNK_INTERVAL;
        private Duration killGrace = Execution.DEFAULT_KILL_GRACE;
        private Duration shutdownGrace = Execution.DEFAULT_SHUTDOWN_GRACE;
        private Duration retention = Storage.DEFAULT_RETENTION;
        private Duration uploadUrlTtl = Storage.DEFAULT_UPLOAD_URL_TTL;
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
        /** Per-tenant limits on runs RUNNING at once ({@link RunningLimits}). */
        public Builder running(RunningLimits v) {
            running = v;
            return this;
        }

        /** Per-tenant quotas ({@link Quotas}). */
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
                    new Deployment(prefix, bucket, shards),
                    new Sweep(sweepPeriod, lookahead, settle, requeueAfter, maxSweepBacklog, dispatchConcurrency),
                    new Execution(lease, heartbeat, killGrace, shutdownGrace, executorConcurrency),
                    new Runs(
                            retryBase,
                            retryCap,
                            minInterval,
                            defaultMaxAttempts,
                            maxAttemptsLimit,
                            defaultTimeoutSeconds,
                            maxTimeoutSeconds),
                    new Storage(logCapBytes, inlineLogBytes, logChunkInterval, retention, uploadUrlTtl),
                    new Publishing(emfMetrics, jsonRunEvents, webhooks),
                    quotas,
                    running,
                    sandbox,
                    limits);
        }
    }
}
