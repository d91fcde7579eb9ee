package dev.punctual.wiring;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * {@code punctual.*} configuration (env: {@code PUNCTUAL_*}). Every entry is optional: an unset one keeps the
 * default named in {@link dev.punctual.core.config.Settings}, so defaults live in one place.
 */
@ConfigMapping(prefix = "punctual")
public interface PunctualConfig {
    Optional<String> prefix();

    Optional<String> bucket();

    /** Overrides the queue URL (otherwise looked up by name once). */
    Optional<String> queueUrl();

    OptionalInt shards();

    /** Jobs a dispatch moves on at once (punctual.dispatch-concurrency). */
    OptionalInt dispatchConcurrency();

    Optional<Duration> lookahead();

    Optional<Duration> settle();

    /** How long a lost message or a dead executor's run waits before the sweeper sends it again. */
    Optional<Duration> requeueAfter();

    Optional<Duration> lease();

    Optional<Duration> heartbeat();

    Optional<Duration> retryBase();

    Optional<Duration> retryCap();

    Optional<Duration> minInterval();

    OptionalInt executorConcurrency();

    OptionalLong logCapBytes();

    OptionalLong inlineLogBytes();

    /** How often a running attempt's new output is shipped for the API's live log; 0: off. */
    Optional<Duration> logChunkInterval();

    Optional<Duration> shutdownGrace();

    Optional<Duration> retention();

    /** Where executors keep the binary cache and run directories. */
    Optional<String> workDir();

    /** Addresses S3 path-style (LocalStack, S3Proxy). */
    Optional<Boolean> s3PathStyle();

    /** The executor's name in leases and run history (default: host, pid and a random suffix). */
    Optional<String> executorId();

    /** Store calls an executor makes before its first run, to compile their code ({@code exec/Priming}); 0: none. */
    OptionalInt executorPrimeCalls();

    /** Publish the meters as CloudWatch Embedded Metric Format lines on stdout (set on AWS: executor and sweeper). */
    Optional<Boolean> emfMetrics();

    /** Print each run transition as a JSON line on stdout, for CloudWatch Logs Insights (set on ECS). */
    Optional<Boolean> jsonRunEvents();

    /**
     * The EventBridge bus run outcomes are published on ({@code punctual.events.bus-name}; unset: not published).
     * Its endpoint is the SDK's ({@code AWS_ENDPOINT_URL_EVENTBRIDGE} points it elsewhere, e.g. LocalStack).
     */
    @WithName("events.bus-name")
    Optional<String> eventsBusName();

    /**
     * What jobs' webhooks may reach: {@code public} (https to public addresses, the default), {@code any} (also http
     * and private addresses: a developer's machine) or {@code off} (a job naming one is refused).
     */
    Optional<String> webhooks();

    /** The events' {@code source} (default {@code punctual}), what rules match on. */
    @WithName("events.source")
    Optional<String> eventsSource();

    /**
     * How the API knows who is calling: {@code jwt} (API Gateway's JWT authorizer; the tenant comes from the
     * token's claims), {@code iam} (AWS_IAM authorization; the tenant is the caller's principal) or {@code none}
     * (everything belongs to one tenant, {@code local}: an explicit opt-in). Default {@code jwt}: fail closed.
     */
    Optional<String> authMode();

    /** With {@code jwt}: the claim naming the tenant (e.g. {@code tenant}, {@code org_id}); default issuer + subject. */
    Optional<String> authTenantClaim();

    /** With {@code iam}: {@code principal} (default: the role or user, session names dropped) or {@code account}. */
    Optional<String> authIamTenant();

    /** Per tenant: jobs that exist (default {@value dev.punctual.core.limits.Quotas#DEFAULT_JOBS}). */
    OptionalInt quotaJobs();

    /** Per tenant: the scheduled starts per minute its jobs may add up to. */
    OptionalInt quotaRunsPerMinute();

    /** Per tenant: triggers per calendar minute. */
    OptionalInt quotaTriggersPerMinute();

    /** Per tenant: backfilled occurrences per UTC day. */
    OptionalInt quotaBackfillPerDay();

    /** Per tenant: runs RUNNING at once (0, the default: no limit; at most 100). */
    OptionalInt quotaRunning();

    /** Owners' own running limits over {@link #quotaRunning}: {@code owner=N;owner=N}. */
    Optional<String> quotaRunningTenants();

    /** Run every binary as a user of its own from a uid pool (active when the executor is root). Default on. */
    Optional<Boolean> sandbox();

    /** The sandbox's first uid (and gid). */
    OptionalInt sandboxUidBase();

    /** How many uids the sandbox pool has. */
    OptionalInt sandboxUids();

    /** Where sandboxed runs' directories live (every directory above it must be traversable by others). */
    Optional<String> sandboxDir();

    /** A sandboxed run's network: {@code shared} (the executor's; default) or {@code none} (needs CAP_SYS_ADMIN). */
    Optional<String> sandboxNetwork();

    /**
     * How a sandboxed run's diskMb is held: {@code auto} (default: a filesystem of its own where the executor can
     * give one, else watched), {@code filesystem} (refuses to start without) or {@code watch}.
     */
    Optional<String> sandboxDisk();

    /** The program that mounts a run's own filesystem (default: {@code punctual-sandbox} beside the application). */
    Optional<String> sandboxHelper();

    /** Per run, at most (and by default): processes and threads of its user. */
    OptionalInt limitsProcesses();

    /** Per run, at most: MiB of data per process. */
    OptionalInt limitsMemoryMb();

    /** Per run, at most: open files per process. */
    OptionalInt limitsOpenFiles();

    /** Per run, at most: MiB of any one file. */
    OptionalInt limitsFileSizeMb();

    /** Per run, at most: CPU seconds per process. */
    OptionalInt limitsCpuSeconds();

    /** Per run, at most: MiB on disk. */
    OptionalInt limitsDiskMb();
}
