package dev.punctual.core.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TimeBucketsTest {

    @Test
    void bucketOfTruncatesToTheMinute() {
        assertThat(TimeBuckets.bucketOf(Instant.parse("2030-01-02T03:04:59.999Z")))
                .isEqualTo(Instant.parse("2030-01-02T03:04:00Z"));
        assertThat(TimeBuckets.bucketOf(Instant.parse("2030-01-02T03:04:00Z")))
                .isEqualTo(Instant.parse("2030-01-02T03:04:00Z"));
    }

    @Test
    void partitionIsMinuteInUtcThenShard() {
        assertThat(TimeBuckets.partition(Instant.parse("2030-01-02T03:04:00Z"), 3))
                .isEqualTo("2030-01-02T03:04Z#3");
    }

    @Test
    void partitionForUsesTheBucketOfTheDueTimeAndTheRunsShard() {
        TimeBuckets buckets = new TimeBuckets(8);
        Instant due = Instant.parse("2030-12-31T23:59:42.123Z");
        String p = buckets.partitionFor(due, "job_a", "run_b");
        assertThat(p).isEqualTo("2030-12-31T23:59Z#" + buckets.shardOf("job_a", "run_b"));
    }

    @Test
    void shardOfIsDeterministicAndInRange() {
        TimeBuckets buckets = new TimeBuckets(5);
        TimeBuckets again = new TimeBuckets(5);
        Random random = new Random(42);
        boolean[] seen = new boolean[5];
        for (int i = 0; i < 500; i++) {
            String job = "job_" + Long.toString(random.nextLong(), 32);
            String run = "run_" + Long.toString(random.nextLong(), 32);
            int shard = buckets.shardOf(job, run);
            assertThat(shard).isBetween(0, 4);
            assertThat(again.shardOf(job, run)).isEqualTo(shard);
            seen[shard] = true;
        }
        // 500 random ids over 5 shards: every shard is used (spreads writes).
        for (boolean s : seen) {
            assertThat(s).isTrue();
        }
    }

    @Test
    void sortKeysSortLexicallyInTimeOrder() {
        Instant base = Instant.parse("2030-01-01T23:59:58.998Z");
        List<Instant> dues = new ArrayList<>();
        // Crosses millisecond, second, minute, hour and day boundaries.
        for (long ms : new long[] {
            0, 1, 2, 9, 10, 99, 100, 999, 1000, 1001, 1002, 2003, 61_000, 3_600_000, 86_400_000L, 400L * 86_400_000L
        }) {
            dues.add(base.plusMillis(ms));
        }
        List<String> keys =
                dues.stream().map(t -> TimeBuckets.sortKey(t, "job_z", "run_z")).toList();
        List<String> sorted = new ArrayList<>(keys);
        sorted.sort(Comparator.naturalOrder());
        assertThat(sorted).containsExactlyElementsOf(keys);
    }

    @Test
    void sortKeysHaveAFixedWidthTimePrefix() {
        assertThat(TimeBuckets.sortKey(Instant.parse("2030-01-01T00:00:00Z"), "job_a", "run_b"))
                .isEqualTo("2030-01-01T00:00:00.000Z#job_a#run_b");
    }

    @Test
    void upperBoundCoversEverythingDueAtTAndNothingDueLater() {
        Random random = new Random(7);
        Instant base = Instant.parse("2030-06-15T12:00:00Z");
        for (int i = 0; i < 200; i++) {
            Instant t = base.plusMillis(random.nextInt(10_000_000));
            String bound = TimeBuckets.sortUpperBound(t);
            String job = "job_" + randomId(random);
            String run = "run_" + randomId(random);
            assertThat(TimeBuckets.sortKey(t, job, run)).isLessThanOrEqualTo(bound);
            assertThat(TimeBuckets.sortKey(t.minusMillis(1), job, run)).isLessThan(bound);
            assertThat(TimeBuckets.sortKey(t.plusMillis(1), job, run)).isGreaterThan(bound);
            assertThat(TimeBuckets.sortKey(t.plus(Duration.ofDays(1)), job, run))
                    .isGreaterThan(bound);
        }
    }

    @Test
    void upperBoundCoversIdsMadeOfTheHighestIdCharacters() {
        Instant t = Instant.parse("2030-06-15T12:00:00Z");
        String zzz = "z".repeat(20) + "7".repeat(5);
        assertThat(TimeBuckets.sortKey(t, "job_" + zzz, "run_" + zzz)).isLessThan(TimeBuckets.sortUpperBound(t));
    }

    private static String randomId(Random random) {
        String alphabet = "abcdefghijklmnopqrstuvwxyz234567";
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }
}
