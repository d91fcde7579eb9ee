package dev.punctual.wiring;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithName;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The {@code punctual.*} keys that are not core's Settings (env: {@code PUNCTUAL_*}): where the queue is, the
 * executor's own name and directory, where run outcomes go, and how the API knows its callers. The keys that become
 * Settings are core's {@link dev.punctual.core.config.SettingsSource} table; no key is in both. Every entry is
 * optional; its default is where it is read.
 */
@ConfigMapping(prefix = "punctual")
public interface PunctualConfig {
    /** Overrides the queue URL (otherwise looked up by name once). */
    Optional<String> queueUrl();

    /** Where executors keep the binary cache and run directories. */
    Optional<String> workDir();

    /** Addresses S3 path-style (LocalStack, S3Proxy). */
    Optional<@WithConverter(StrictBoolean.class) Boolean> s3PathStyle();

    /** The executor's name in leases and run history (default: host, pid and a random suffix). */
    Optional<String> executorId();

    /** Store calls an executor makes before its first run, to compile their code ({@code exec/Priming}); 0: none. */
    OptionalInt executorPrimeCalls();

    /**
     * The EventBridge bus run outcomes are published on ({@code punctual.events.bus-name}; unset: not published).
     * Its endpoint is the SDK's ({@code AWS_ENDPOINT_URL_EVENTBRIDGE} points it elsewhere, e.g. LocalStack).
     */
    @WithName("events.bus-name")
    Optional<String> eventsBusName();

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
}
