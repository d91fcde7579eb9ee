package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.limits.Quotas;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The tenant usage item's conditional counters on DynamoDB Local: limits hold, under races too. */
class UsageRepositoryTest {
    private final Instant now = Instant.parse("2030-01-01T10:00:30Z");
    private final Punctual p = Fixture.stackAt(now);

    @Test
    void jobSlotsAndScheduledRateAreReservedAndGivenBack() {
        Quotas q = new Quotas(2, 20, 10, 10);
        assertThat(p.usage.reserve("t1", 1, 12, q)).isTrue();
        assertThat(p.usage.reserve("t1", 1, 9, q)).as("rate 21 > 20").isFalse();
        assertThat(p.usage.reserve("t1", 1, 8, q)).isTrue();
        assertThat(p.usage.reserve("t1", 1, 1, q)).as("a third job").isFalse();
        assertThat(p.usage.get("t1")).isEqualTo(new dev.punctual.core.tenant.UsageRepository.Usage(2, 20));
        assertThat(p.usage.get("t2")).isEqualTo(new dev.punctual.core.tenant.UsageRepository.Usage(0, 0));

        assertThat(p.tx.write(List.of(p.usage.changeRate("t1", 1, q))).won()).isFalse();
        assertThat(p.tx.write(List.of(p.usage.changeRate("t1", -5, q))).won()).isTrue();
        assertThat(p.tx.write(List.of(p.usage.removeJob("t1", 12))).won()).isTrue();
        assertThat(p.usage.get("t1")).isEqualTo(new dev.punctual.core.tenant.UsageRepository.Usage(1, 3));
        assertThat(p.usage.reserve("t1", 2, 2, q)).as("two more jobs: three").isFalse();
        assertThat(p.usage.reserve("t1", 1, 2, q)).isTrue();
        p.usage.release("t1", 1, 2);
        assertThat(p.usage.get("t1")).isEqualTo(new dev.punctual.core.tenant.UsageRepository.Usage(1, 3));
        // Usage of jobs made before quotas existed never goes below zero.
        assertThat(p.tx.write(List.of(p.usage.removeJob("t3", 4))).won()).isTrue();
        assertThat(p.usage.get("t3")).isEqualTo(new dev.punctual.core.tenant.UsageRepository.Usage(0, 0));
    }

    @Test
    void triggerWindowsFillAndStartAgainEachMinute() {
        for (int i = 0; i < 3; i++) {
            assertThat(p.usage.countTrigger("t", now, 3)).isTrue();
        }
        assertThat(p.usage.countTrigger("t", now, 3)).isFalse();
        assertThat(p.usage.countTrigger("t", now.plusSeconds(29), 3))
                .as("same minute")
                .isFalse();
        assertThat(p.usage.countTrigger("t", now.plusSeconds(30), 3))
                .as("next minute")
                .isTrue();
        assertThat(p.usage.countTrigger("other", now, 3)).isTrue();

        assertThat(p.usage.countBackfill("t", now, 7, 10)).isTrue();
        assertThat(p.usage.countBackfill("t", now, 4, 10)).isFalse();
        assertThat(p.usage.countBackfill("t", now, 3, 10)).isTrue();
        assertThat(p.usage.countBackfill("t", now, 11, 10)).isFalse();
        assertThat(p.usage.countBackfill("t", now.plusSeconds(86_400), 10, 10)).isTrue();
    }

    @Test
    void racingTriggersNeverPassTheLimit() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<Boolean>> calls = java.util.stream.IntStream.range(0, 40)
                    .mapToObj(i -> (Callable<Boolean>) () -> p.usage.countTrigger("racer", now, 10))
                    .toList();
            long won = 0;
            for (Future<Boolean> f : pool.invokeAll(calls)) {
                won += f.get() ? 1 : 0;
            }
            assertThat(won).isEqualTo(10);
        } finally {
            pool.shutdownNow();
        }
    }
}
