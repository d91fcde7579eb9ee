package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.firing.JitterSpec;
import dev.punctual.core.run.Run;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import dev.punctual.core.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Jitter through the real path: a per-minute job created through the service, then swept minute by minute for
 * twenty minutes. Each run stands for its occurrence (run id, successor) and is due at that occurrence plus an
 * offset within the bound: the same offset every time for hashed jitter, a fresh one for random.
 */
class JitterDispatchTest {

    private static List<Run> sweptRuns(String mode) {
        Instant t0 = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
        SettableClock clock = new SettableClock(t0);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        assertThat(p.watermarks.advance(TimeBuckets.bucketOf(t0), t0)).isTrue();
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder(
                                "jittered",
                                binaryId,
                                Fixture.interval(Duration.ofMinutes(1), t0.plus(Duration.ofMinutes(5))))
                        .jitter(new JitterSpec(mode, "PT50S"))
                        .build());
        for (int m = 1; m <= 25; m++) {
            clock.set(t0.plus(Duration.ofMinutes(m)));
            p.sweeper.sweep();
        }
        List<Run> runs = Fixture.runsOf(p, job.id());
        assertThat(runs).hasSizeGreaterThan(20);
        for (int i = 0; i < runs.size(); i++) {
            Run r = runs.get(i);
            assertThat(r.occurrence())
                    .as("consecutive occurrences, none skipped or doubled")
                    .isEqualTo(t0.plus(Duration.ofMinutes(5 + i)));
            assertThat(r.scheduledAt()).isBetween(r.occurrence(), r.occurrence().plusSeconds(50));
        }
        return runs;
    }

    private static Set<Long> offsets(List<Run> runs) {
        return runs.stream()
                .map(r -> Duration.between(r.occurrence(), r.scheduledAt()).toMillis())
                .collect(Collectors.toSet());
    }

    @Test
    void hashedJitterKeepsOneOffsetPerJob() {
        assertThat(offsets(sweptRuns("hashed"))).hasSize(1);
    }

    @Test
    void randomJitterDrawsAnOffsetPerRun() {
        assertThat(offsets(sweptRuns("random"))).hasSizeGreaterThan(15);
    }
}
