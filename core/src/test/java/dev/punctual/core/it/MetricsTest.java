package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.RunWorker;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.Provisioner;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.job.Job;
import dev.punctual.core.metrics.EmfDocuments;
import dev.punctual.core.metrics.EmfMeterRegistry;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The meters move as runs go through real executors and sweeps, on the emulators. */
class MetricsTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    private static double count(MeterRegistry r, String name, String state) {
        Counter c = state == null
                ? r.find(name).counter()
                : r.find(name).tag(Meters.STATE, state).counter();
        return c == null ? 0 : c.count();
    }

    private static double gauge(MeterRegistry r, String name) {
        return r.get(name).gauge().value();
    }

    @Test
    void outcomesRetriesLatenessAndBusySlotsMoveAsRunsGoThroughAnExecutor() {
        Punctual p = Fixture.stack(Fixture.fastRetries().build(), Clock.systemUTC());
        MeterRegistry r = p.meters.registry();
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        assertThat(gauge(r, Meters.SLOTS)).isEqualTo(2);
        assertThat(gauge(r, Meters.SLOTS_BUSY)).isZero();

        JobView ok = Fixture.createJob(p, "ok", "sleep 2", ScheduleSpec.now(), j -> j);
        // The slot is taken from the claim to the outcome.
        await().atMost(Duration.ofSeconds(10)).until(() -> gauge(r, Meters.SLOTS_BUSY) == 1);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> Fixture.onlyRun(p, ok.id()).state() == RunState.SUCCEEDED);
        JobView failing = Fixture.createJob(p, "failing", "exit 3", ScheduleSpec.now(), j -> j.maxAttempts(2));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Fixture.onlyRun(p, failing.id()).state() == RunState.DEAD);

        await().atMost(Duration.ofSeconds(5)).until(() -> gauge(r, Meters.SLOTS_BUSY) == 0);
        assertThat(count(r, Meters.RUNS, "STARTED")).isEqualTo(3);
        assertThat(count(r, Meters.RUNS, "SUCCEEDED")).isEqualTo(1);
        assertThat(count(r, Meters.RUNS, "FAILED")).isEqualTo(1);
        assertThat(count(r, Meters.RUNS, "DEAD")).isEqualTo(1);
        assertThat(count(r, Meters.RETRIES, null)).isEqualTo(1);
        assertThat(count(r, Meters.CLAIM_CONFLICTS, null)).isZero();
        Timer lateness = r.get(Meters.START_LATENESS).timer();
        assertThat(lateness.count())
                .as("first attempts only: a retry starts after its backoff")
                .isEqualTo(2);
        assertThat(lateness.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isBetween(0.0, 1000.0);
    }

    @Test
    void aClaimThatLosesToAnotherExecutorsLeaseIsAConflict() throws Exception {
        Punctual p = Fixture.realTimeStack();
        Instant now = Instant.now();
        Job job = Fixture.insertOnceJob(p, now, now);
        assertThat(Fixture.claim(p, job, "ex-a", now)).isTrue();
        p.queue.sendBatch(List.of(new RunMessage(job.id(), job.pendingRunId(), now)), now);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            RunWorker b = p.worker("ex-b", tmp.resolve("ex-b"), timer);
            assertThat(b.handle(Fixture.nextMessage(p))).isEqualTo(RunWorker.Outcome.LEASED_ELSEWHERE);
            b.close();
        } finally {
            timer.shutdownNow();
        }
        assertThat(count(p.meters.registry(), Meters.CLAIM_CONFLICTS, null)).isEqualTo(1);
        assertThat(count(p.meters.registry(), Meters.RUNS, "STARTED")).isZero();
    }

    @Test
    void eachSweepPublishesItsDeadLettersAndTheQueueDepthBeforeItReturns() throws Exception {
        Instant now = Instant.parse("2030-01-01T10:00:00Z");
        SettableClock clock = new SettableClock(now);
        Settings settings = TestStack.isolatedSettings().build();
        AwsClients.Target t = TestStack.target();
        Provisioner.provision(t, new Resources(settings));
        List<String> lines = new CopyOnWriteArrayList<>();
        Punctual p = new Punctual(
                Fixture.dynamo(),
                Fixture.sqs(),
                Fixture.s3(),
                AwsClients.presigner(t),
                settings,
                clock,
                null,
                RunNotices.NONE,
                new Meters(new EmfMeterRegistry(
                        settings.deployment().prefix(), lines::add, io.micrometer.core.instrument.Clock.SYSTEM)));
        // A QUEUED run whose message died in the low lane: the sweep drains every lane's DLQ and marks it DEAD.
        Job queued = Fixture.insertJob(p, Fixture.once(now), now, now, 3);
        assertThat(Fixture.markQueued(p, queued, now)).isTrue();
        String dlq = Fixture.sqs()
                .getQueueUrl(b -> b.queueName(p.resources.runQueue(Priority.LOW).deadLetterName()))
                .queueUrl();
        Fixture.sqs()
                .sendMessage(b ->
                        b.queueUrl(dlq).messageBody(new RunMessage(queued.id(), queued.pendingRunId(), now).encode()));
        // Two messages in the normal lane (one visible, one delayed) and one in the high lane.
        p.queues.sendBatch(
                List.of(
                        new RunMessage("j1", "r1", now),
                        new RunMessage("j2", "r2", now.plusSeconds(600)),
                        new RunMessage("j3", "r3", now, null, Priority.HIGH)),
                now);

        clock.advance(Duration.ofSeconds(5));
        p.sweeper.sweep();

        List<JsonNode> first = EmfDocuments.parse(lines);
        assertThat(EmfDocuments.value(first, Meters.DEAD_LETTERS, null)).isEqualTo(1);
        assertThat(EmfDocuments.queued(first, "visible", "normal")).isEqualTo(1);
        assertThat(EmfDocuments.queued(first, "delayed", "normal")).isEqualTo(1);
        assertThat(EmfDocuments.queued(first, "in_flight", "normal")).isZero();
        assertThat(EmfDocuments.queued(first, "visible", "high")).isEqualTo(1);
        assertThat(EmfDocuments.queued(first, "visible", "low")).isZero();
        assertThat(first)
                .allSatisfy(d -> assertThat(d.path("Prefix").asText())
                        .isEqualTo(settings.deployment().prefix()));

        lines.clear();
        p.sweeper.sweep();
        assertThat(EmfDocuments.value(EmfDocuments.parse(lines), Meters.DEAD_LETTERS, null))
                .as("counted once")
                .isZero();
    }
}
