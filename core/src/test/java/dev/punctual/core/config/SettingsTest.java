package dev.punctual.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.punctual.core.limits.RunLimits;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class SettingsTest {

    @Test
    void defaultsAreTheDocumentedConstants() {
        Settings s = Settings.defaults();
        assertThat(s.deployment().prefix()).isEqualTo(Deployment.DEFAULT_PREFIX);
        assertThat(s.deployment().shards()).isEqualTo(Deployment.DEFAULT_SHARDS);
        assertThat(s.sweep().period()).isEqualTo(Sweep.DEFAULT_PERIOD);
        assertThat(s.sweep().lookahead()).isEqualTo(Sweep.DEFAULT_LOOKAHEAD);
        assertThat(s.sweep().settle()).isEqualTo(Sweep.DEFAULT_SETTLE);
        assertThat(s.sweep().requeueAfter()).isEqualTo(Sweep.DEFAULT_REQUEUE_AFTER);
        assertThat(s.sweep().maxBacklog()).isEqualTo(Sweep.DEFAULT_MAX_BACKLOG);
        assertThat(s.sweep().dispatchConcurrency()).isEqualTo(Sweep.DEFAULT_DISPATCH_CONCURRENCY);
        assertThat(s.execution().lease()).isEqualTo(Execution.DEFAULT_LEASE);
        assertThat(s.execution().heartbeat()).isEqualTo(Execution.DEFAULT_HEARTBEAT);
        assertThat(s.execution().killGrace()).isEqualTo(Execution.DEFAULT_KILL_GRACE);
        assertThat(s.execution().shutdownGrace()).isEqualTo(Execution.DEFAULT_SHUTDOWN_GRACE);
        assertThat(s.execution().concurrency()).isEqualTo(Execution.DEFAULT_CONCURRENCY);
        assertThat(s.runs().retryBase()).isEqualTo(Runs.DEFAULT_RETRY_BASE);
        assertThat(s.runs().retryCap()).isEqualTo(Runs.DEFAULT_RETRY_CAP);
        assertThat(s.runs().minInterval()).isEqualTo(Runs.DEFAULT_MIN_INTERVAL);
        assertThat(s.runs().defaultMaxAttempts()).isEqualTo(Runs.DEFAULT_MAX_ATTEMPTS);
        assertThat(s.runs().maxAttemptsLimit()).isEqualTo(Runs.DEFAULT_MAX_ATTEMPTS_LIMIT);
        assertThat(s.runs().defaultTimeoutSeconds()).isEqualTo(Runs.DEFAULT_TIMEOUT_SECONDS);
        assertThat(s.runs().maxTimeoutSeconds()).isEqualTo(Runs.DEFAULT_MAX_TIMEOUT_SECONDS);
        assertThat(s.storage().logCapBytes()).isEqualTo(Storage.DEFAULT_LOG_CAP_BYTES);
        assertThat(s.storage().inlineLogBytes()).isEqualTo(Storage.DEFAULT_INLINE_LOG_BYTES);
        assertThat(s.storage().logChunkInterval()).isEqualTo(Storage.DEFAULT_LOG_CHUNK_INTERVAL);
        assertThat(s.storage().retention()).isEqualTo(Storage.DEFAULT_RETENTION);
        assertThat(s.storage().uploadUrlTtl()).isEqualTo(Storage.DEFAULT_UPLOAD_URL_TTL);
        assertThat(s.publishing()).isEqualTo(new Publishing(false, false, WebhookMode.PUBLIC));
    }

    @Test
    void defaultsAreConsistentWithEachOther() {
        assertThat(Sweep.DEFAULT_LOOKAHEAD).isGreaterThan(Sweep.DEFAULT_PERIOD);
        assertThat(Execution.DEFAULT_HEARTBEAT).isLessThan(Execution.DEFAULT_LEASE);
        assertThat(Runs.DEFAULT_MAX_ATTEMPTS).isLessThanOrEqualTo(Runs.DEFAULT_MAX_ATTEMPTS_LIMIT);
        assertThat(Runs.DEFAULT_TIMEOUT_SECONDS).isLessThanOrEqualTo(Runs.DEFAULT_MAX_TIMEOUT_SECONDS);
        // An SQS message cannot stay invisible more than 12 h after receipt.
        assertThat(Duration.ofSeconds(Runs.DEFAULT_MAX_TIMEOUT_SECONDS)).isLessThan(Duration.ofHours(12));
    }

    @Test
    void bucketDefaultsToThePrefixedArtifactsBucket() {
        assertThat(Settings.defaults().deployment().bucket()).isEqualTo("punctual-artifacts");
        assertThat(bucket(b -> b.prefix("acme"))).isEqualTo("acme-artifacts");
        assertThat(bucket(b -> b.prefix("acme").bucket("  "))).isEqualTo("acme-artifacts");
        assertThat(bucket(b -> b.prefix("acme").bucket("mine"))).isEqualTo("mine");
    }

    private static String bucket(UnaryOperator<Settings.Builder> settings) {
        return settings.apply(Settings.builder()).build().deployment().bucket();
    }

    private static void assertRejected(String message, UnaryOperator<Settings.Builder> settings) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> settings.apply(Settings.builder()).build())
                .withMessage(message);
    }

    private static final String LATE = "lookahead must exceed the sweep period, or runs would be found late";

    @Test
    void rejectsALookaheadNotLongerThanTheSweepPeriod() {
        assertRejected(LATE, b -> b.sweepPeriod(Duration.ofMinutes(2)).lookahead(Duration.ofMinutes(2)));
        assertRejected(LATE, b -> b.sweepPeriod(Duration.ofMinutes(3)).lookahead(Duration.ofMinutes(2)));
        assertThat(Settings.builder()
                        .sweepPeriod(Duration.ofSeconds(119))
                        .build()
                        .sweep()
                        .lookahead())
                .isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void rejectsAHeartbeatNotShorterThanTheLease() {
        assertRejected(
                "heartbeat must be shorter than the lease",
                b -> b.lease(Duration.ofSeconds(20)).heartbeat(Duration.ofSeconds(20)));
        assertRejected(
                "heartbeat must be shorter than the lease",
                b -> b.lease(Duration.ofSeconds(20)).heartbeat(Duration.ofSeconds(30)));
        assertThat(Settings.builder()
                        .lease(Duration.ofSeconds(21))
                        .build()
                        .execution()
                        .heartbeat())
                .isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void rejectsFewerThanOneShard() {
        assertRejected("shards must be >= 1", b -> b.shards(0));
        assertThat(Settings.builder().shards(1).build().deployment().shards()).isEqualTo(1);
    }

    @Test
    void rejectsNoDispatchThreadsANegativeChunkIntervalAndIncompleteRunLimits() {
        assertRejected("dispatch concurrency must be >= 1", b -> b.dispatchConcurrency(0));
        assertRejected("log chunk interval must be 0 (off) or more", b -> b.logChunkInterval(Duration.ofSeconds(-1)));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Settings.builder().limits(RunLimits.NONE).build())
                .withMessageStartingWith("every executor-wide run limit needs a value");
    }
}
