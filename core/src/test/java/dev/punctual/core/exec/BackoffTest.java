package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** base · 2^(attempt−1), capped, ±20 % jitter, at least a second. */
class BackoffTest {
    private static final Duration BASE = Duration.ofSeconds(5);
    private static final Duration CAP = Duration.ofMinutes(5);
    private static final int SAMPLES = 300;

    private final Backoff backoff = new Backoff(BASE, CAP, new Random(1234));

    private static long nominalMillis(int attempt) {
        return Math.min(BASE.toMillis() * (1L << (attempt - 1)), CAP.toMillis());
    }

    @Test
    void staysWithinTwentyPercentOfTheNominalDelay() {
        for (int attempt = 1; attempt <= 7; attempt++) {
            long nominal = nominalMillis(attempt);
            for (int i = 0; i < SAMPLES; i++) {
                long ms = backoff.after(attempt).toMillis();
                assertThat(ms)
                        .as("attempt %d", attempt)
                        .isBetween((long) (nominal * 0.8), Math.min((long) (nominal * 1.2), CAP.toMillis()));
            }
        }
    }

    @Test
    void jitterSpreadsBothWaysAroundTheNominalDelay() {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < SAMPLES; i++) {
            long ms = backoff.after(2).toMillis();
            min = Math.min(min, ms);
            max = Math.max(max, ms);
        }
        // 300 uniform samples over [8 s, 12 s]: they reach well into both halves.
        assertThat(min).isLessThan(9_000);
        assertThat(max).isGreaterThan(11_000);
    }

    @Test
    void neverExceedsTheCap() {
        for (int attempt : new int[] {7, 8, 10, 20, 31, 32, 64, 1000, Integer.MAX_VALUE}) {
            for (int i = 0; i < 50; i++) {
                assertThat(backoff.after(attempt))
                        .as("attempt %d", attempt)
                        .isLessThanOrEqualTo(CAP)
                        .isGreaterThanOrEqualTo(Duration.ofMillis((long) (CAP.toMillis() * 0.8)));
            }
        }
    }

    @Test
    void neverBelowOneSecond() {
        Backoff tiny = new Backoff(Duration.ofMillis(100), CAP, new Random(99));
        for (int attempt = 0; attempt <= 3; attempt++) {
            for (int i = 0; i < 100; i++) {
                assertThat(tiny.after(attempt)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
            }
        }
    }

    @Test
    void attemptsBelowOneAreTreatedAsTheFirst() {
        for (int attempt : new int[] {0, -1, -100}) {
            for (int i = 0; i < 50; i++) {
                assertThat(backoff.after(attempt).toMillis()).isBetween(4_000L, 6_000L);
            }
        }
    }

    @Test
    void averageDelayGrowsWithEachAttemptUntilTheCap() {
        double previous = 0;
        for (int attempt = 1; attempt <= 6; attempt++) {
            double mean = mean(attempt);
            assertThat(mean)
                    .as("attempt %d", attempt)
                    .isGreaterThan(previous * 1.5)
                    .isBetween(nominalMillis(attempt) * 0.9, nominalMillis(attempt) * 1.1);
            previous = mean;
        }
    }

    private double mean(int attempt) {
        long sum = 0;
        for (int i = 0; i < SAMPLES; i++) {
            sum += backoff.after(attempt).toMillis();
        }
        return (double) sum / SAMPLES;
    }
}
