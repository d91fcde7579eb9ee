package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.notify.CapturedNotices;
import dev.punctual.core.notify.JobOverdue;
import dev.punctual.core.run.WatchRepository;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.ExpectSpec;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.sweep.WatchChecks;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Many watches due at once: checked side by side, at most a sweep's share of them, earliest deadlines first; the
 * others are left, with their deadlines given back so that the sweep's watermark stops before them.
 */
class WatchChecksTest {
    @Test
    void aSweepChecksAtMostItsShareAndLeavesTheRestForTheNext() throws Exception {
        Instant t0 = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        SettableClock clock = new SettableClock(t0);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        String binaryId = Fixture.uploadBinary(p, Fixture.OWNER, Fixture.script("true"));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            // Deadlines a minute apart: the first three are checked.
            clock.set(t0.plusSeconds(60L * i));
            ids.add(p.jobService
                    .create(
                            Fixture.OWNER,
                            JobRequest.builder(
                                            "watched-" + i,
                                            binaryId,
                                            ScheduleSpec.interval(
                                                    "PT1H",
                                                    t0.plus(Duration.ofDays(1)).toString(),
                                                    null))
                                    .expect(new ExpectSpec("PT10M", null))
                                    .build())
                    .id());
        }
        CapturedNotices capture = new CapturedNotices();
        WatchChecks checks = new WatchChecks(p.jobs, p.runs, p.watches, p.schedules, capture, 3);
        List<WatchRepository.Watch> due = new ArrayList<>(
                ids.stream().map(id -> p.watches.get(id).orElseThrow()).toList());
        Collections.reverse(due);
        Instant now = t0.plus(Duration.ofHours(1));
        List<Instant> left = new ArrayList<>();

        assertThat(checks.check(due, now, left::add)).isEqualTo(3);

        assertThat(capture.published)
                .extracting(n -> ((JobOverdue) n).jobId())
                .containsExactlyInAnyOrderElementsOf(ids.subList(0, 3));
        assertThat(left)
                .containsExactlyInAnyOrderElementsOf(IntStream.of(3, 4)
                        .mapToObj(i -> t0.plusSeconds(60L * i).plus(Duration.ofMinutes(10)))
                        .toList());
        assertThat(p.watches.get(ids.get(4)).orElseThrow().window().deadline())
                .as("left where it was")
                .isEqualTo(t0.plusSeconds(240).plus(Duration.ofMinutes(10)));
    }
}
