package dev.punctual.core.firing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class JitterTest {
    private static final Instant AT = Instant.parse("2030-01-01T09:00:00Z");
    private static final Duration MAX = Duration.ofSeconds(30);

    @Test
    void hashedIsStablePerJobWithinBoundsAndSpreadsIdenticalJobs() {
        Jitter hashed = new Jitter(Jitter.Mode.HASHED, MAX);
        List<String> jobs = IntStream.range(0, 1000)
                .mapToObj(i -> "job_" + Integer.toHexString(i * 7919))
                .toList();
        Set<Long> offsets = new HashSet<>();
        for (String job : jobs) {
            Instant due = hashed.apply(job, AT, new SplittableRandom(1));
            assertThat(due).isBetween(AT, AT.plus(MAX));
            assertThat(hashed.apply(job, AT.plus(Duration.ofHours(1)), new SplittableRandom(2)))
                    .as("the same offset for every occurrence of the job")
                    .isEqualTo(due.plus(Duration.ofHours(1)));
            offsets.add(Duration.between(AT, due).toMillis());
        }
        // 1000 jobs over 30 001 possible offsets: nearly all distinct if the hash spreads them.
        assertThat(offsets).hasSizeGreaterThan(950);
        // And across the whole range, not bunched: each third of it gets a fair share.
        long low = offsets.stream().filter(o -> o < 10_000).count();
        long high = offsets.stream().filter(o -> o >= 20_000).count();
        assertThat(low).isBetween(250L, 420L);
        assertThat(high).isBetween(250L, 420L);
    }

    @Test
    void randomDrawsAFreshOffsetWithinBoundsForEveryRun() {
        Jitter random = new Jitter(Jitter.Mode.RANDOM, MAX);
        SplittableRandom rng = new SplittableRandom(42);
        Set<Instant> dues = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            Instant due = random.apply("job_same", AT, rng);
            assertThat(due).isBetween(AT, AT.plus(MAX));
            dues.add(due);
        }
        assertThat(dues).hasSizeGreaterThan(450);
    }

    @Test
    void offsetsAreWholeMilliseconds() {
        Instant due =
                new Jitter(Jitter.Mode.HASHED, Duration.ofMillis(1500)).apply("job_x", AT, new SplittableRandom(3));
        assertThat(due.getNano() % 1_000_000).isZero();
    }
}
