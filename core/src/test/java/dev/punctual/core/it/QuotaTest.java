package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.core.Punctual;
import dev.punctual.core.error.QuotaExceededException;
import dev.punctual.core.limits.Quotas;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.BackfillRequest;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Per-tenant quotas through the services on DynamoDB Local: over a limit nothing is written; others are untouched. */
class QuotaTest {
    private final Instant now = Instant.parse("2030-01-01T10:00:10Z");
    private final SettableClock clock = new SettableClock(now);
    private final Punctual p = Fixture.stack(
            TestStack.isolatedSettings().quotas(new Quotas(2, 20, 2, 5)).build(), clock);
    private final String tenant = "quota-" + System.nanoTime();

    private JobView create(String owner, String binaryId, ScheduleSpec schedule) {
        return p.jobService.create(
                owner,
                JobRequest.builder("q", binaryId, schedule).maxAttempts(1).build());
    }

    private static ScheduleSpec every(String duration) {
        return ScheduleSpec.interval(duration, null, null);
    }

    @Test
    void jobCountAndScheduledRateAreLimitedPerTenantAndADeleteGivesThemBack() {
        String bin = Fixture.uploadBinary(p, tenant, Fixture.script("true"));
        JobView fast = create(tenant, bin, every("PT5S"));
        assertThatThrownBy(() -> create(tenant, bin, every("PT5S")))
                .isInstanceOfSatisfying(QuotaExceededException.class, e -> {
                    assertThat(e.quota()).isEqualTo("runsPerMinute");
                    assertThat(e.getMessage()).contains("12").contains("20");
                });
        JobView hourly = create(tenant, bin, every("PT1H"));
        assertThatThrownBy(() -> create(tenant, bin, every("PT1H")))
                .isInstanceOfSatisfying(QuotaExceededException.class, e -> {
                    assertThat(e.quota()).isEqualTo("jobs");
                    assertThat(e.retryAfterSeconds()).isPositive();
                });
        assertThat(p.jobService.list(tenant, 100, null).items())
                .extracting(JobView::id)
                .containsExactlyInAnyOrder(fast.id(), hourly.id());

        // Another tenant is not affected.
        String otherBin = Fixture.uploadBinary(p, tenant + "-b", Fixture.script("true"));
        create(tenant + "-b", otherBin, every("PT5S"));

        // Replacing the hourly job by a per-10-seconds one would make 12 + 6 = 18: allowed; by per-5: 24, refused.
        JobView v2 = p.jobService.update(
                tenant,
                hourly.id(),
                "*",
                JobRequest.builder("q", bin, every("PT10S")).maxAttempts(1).build());
        assertThatThrownBy(() -> p.jobService.update(
                        tenant,
                        hourly.id(),
                        "*",
                        JobRequest.builder("q", bin, every("PT5S"))
                                .maxAttempts(1)
                                .build()))
                .isInstanceOf(QuotaExceededException.class);
        assertThat(p.jobService.get(tenant, hourly.id()).version()).isEqualTo(v2.version());

        p.deletions.delete(tenant, fast.id());
        create(tenant, bin, every("PT5S"));
        assertThat(p.usage.get(tenant)).isEqualTo(new dev.punctual.core.tenant.UsageRepository.Usage(2, 18));
    }

    @Test
    void triggersPerMinuteAndBackfilledOccurrencesPerDay() {
        String bin = Fixture.uploadBinary(p, tenant, Fixture.script("true"));
        JobView job = create(
                tenant,
                bin,
                ScheduleSpec.interval("PT1M", now.minus(Duration.ofHours(1)).toString(), null));
        p.lifecycle.trigger(tenant, job.id());
        p.lifecycle.trigger(tenant, job.id());
        int runs = Fixture.runsOf(p, job.id()).size();
        assertThatThrownBy(() -> p.lifecycle.trigger(tenant, job.id()))
                .isInstanceOfSatisfying(QuotaExceededException.class, e -> {
                    assertThat(e.quota()).isEqualTo("triggersPerMinute");
                    assertThat(e.retryAfterSeconds()).isEqualTo(50);
                });
        assertThat(Fixture.runsOf(p, job.id())).hasSize(runs);
        clock.set(now.plusSeconds(50));
        p.lifecycle.trigger(tenant, job.id());

        String from = now.minus(Duration.ofMinutes(30)).toString();
        assertThatThrownBy(() -> p.backfills.backfill(
                        tenant,
                        job.id(),
                        new BackfillRequest(
                                from, now.minus(Duration.ofMinutes(24)).toString())))
                .isInstanceOfSatisfying(
                        QuotaExceededException.class, e -> assertThat(e.quota()).isEqualTo("backfillPerDay"));
        assertThat(p.backfills
                        .backfill(
                                tenant,
                                job.id(),
                                new BackfillRequest(
                                        from, now.minus(Duration.ofMinutes(26)).toString()))
                        .created())
                .hasSize(5);
    }
}
