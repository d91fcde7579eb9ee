package dev.punctual.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class SettingsTest {

    @Test
    void defaultsAreTheDocumentedConstants() {
        Settings s = Settings.defaults();
        assertThat(s.prefix()).isEqualTo(Settings.DEFAULT_PREFIX);
        assertThat(s.shards()).isEqualTo(Settings.DEFAULT_SHARDS);
        assertThat(s.sweepPeriod()).isEqualTo(Settings.DEFAULT_SWEEP_PERIOD);
        assertThat(s.lookahead()).isEqualTo(Settings.DEFAULT_LOOKAHEAD);
        assertThat(s.settle()).isEqualTo(Settings.DEFAULT_SETTLE);
        assertThat(s.maxSweepBacklog()).isEqualTo(Settings.DEFAULT_MAX_SWEEP_BACKLOG);
        assertThat(s.lease()).isEqualTo(Settings.DEFAULT_LEASE);
        assertThat(s.heartbeat()).isEqualTo(Settings.DEFAULT_HEARTBEAT);
        assertThat(s.retryBase()).isEqualTo(Settings.DEFAULT_RETRY_BASE);
        assertThat(s.retryCap()).isEqualTo(Settings.DEFAULT_RETRY_CAP);
        assertThat(s.minInterval()).isEqualTo(Settings.DEFAULT_MIN_INTERVAL);
        assertThat(s.defaultMaxAttempts()).isEqualTo(Settings.DEFAULT_MAX_ATTEMPTS);
        assertThat(s.maxAttemptsLimit()).isEqualTo(Settings.DEFAULT_MAX_ATTEMPTS_LIMIT);
        assertThat(s.defaultTimeoutSeconds()).isEqualTo(Settings.DEFAULT_TIMEOUT_SECONDS);
        assertThat(s.maxTimeoutSeconds()).isEqualTo(Settings.DEFAULT_MAX_TIMEOUT_SECONDS);
        assertThat(s.executorConcurrency()).isEqualTo(Settings.DEFAULT_EXECUTOR_CONCURRENCY);
        assertThat(s.logCapBytes()).isEqualTo(Settings.DEFAULT_LOG_CAP_BYTES);
        assertThat(s.killGrace()).isEqualTo(Settings.DEFAULT_KILL_GRACE);
        assertThat(s.shutdownGrace()).isEqualTo(Settings.DEFAULT_SHUTDOWN_GRACE);
        assertThat(s.retention()).isEqualTo(Settings.DEFAULT_RETENTION);
        assertThat(s.uploadUrlTtl()).isEqualTo(Settings.DEFAULT_UPLOAD_URL_TTL);
    }

    @Test
    void defaultsAreConsistentWithEachOther() {
        assertThat(Settings.DEFAULT_LOOKAHEAD).isGreaterThan(Settings.DEFAULT_SWEEP_PERIOD);
        assertThat(Settings.DEFAULT_HEARTBEAT).isLessThan(Settings.DEFAULT_LEASE);
        assertThat(Settings.DEFAULT_MAX_ATTEMPTS).isLessThanOrEqualTo(Settings.DEFAULT_MAX_ATTEMPTS_LIMIT);
        assertThat(Settings.DEFAULT_TIMEOUT_SECONDS).isLessThanOrEqualTo(Settings.DEFAULT_MAX_TIMEOUT_SECONDS);
        // An SQS message cannot stay invisible more than 12 h after receipt.
        assertThat(Duration.ofSeconds(Settings.DEFAULT_MAX_TIMEOUT_SECONDS)).isLessThan(Duration.ofHours(12));
    }

    @Test
    void bucketDefaultsToThePrefixedArtifactsBucket() {
        assertThat(Settings.defaults().bucket()).isEqualTo("punctual-artifacts");
        assertThat(Settings.builder().prefix("acme").build().bucket()).isEqualTo("acme-artifacts");
        assertThat(Settings.builder().prefix("acme").bucket("  ").build().bucket())
                .isEqualTo("acme-artifacts");
        assertThat(Settings.builder().prefix("acme").bucket("mine").build().bucket())
                .isEqualTo("mine");
    }

    private static void assertRejected(UnaryOperator<Settings.Builder> settings) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> settings.apply(Settings.builder()).build());
    }

    @Test
    void rejectsALookaheadNotLongerThanTheSweepPeriod() {
        assertRejected(b -> b.sweepPeriod(Duration.ofMinutes(2)).lookahead(Duration.ofMinutes(2)));
        assertRejected(b -> b.sweepPeriod(Duration.ofMinutes(3)).lookahead(Duration.ofMinutes(2)));
        assertThat(Settings.builder()
                        .sweepPeriod(Duration.ofSeconds(119))
                        .build()
                        .lookahead())
                .isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void rejectsAHeartbeatNotShorterThanTheLease() {
        assertRejected(b -> b.lease(Duration.ofSeconds(20)).heartbeat(Duration.ofSeconds(20)));
        assertRejected(b -> b.lease(Duration.ofSeconds(20)).heartbeat(Duration.ofSeconds(30)));
        assertThat(Settings.builder().lease(Duration.ofSeconds(21)).build().heartbeat())
                .isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void rejectsFewerThanOneShard() {
        assertRejected(b -> b.shards(0));
        assertThat(Settings.builder().shards(1).build().shards()).isEqualTo(1);
    }
}
