package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.Metering;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.RunState;
import dev.punctual.core.sweep.Sweeper;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/**
 * What lets sweeps grow with the load: a sweep's job chains run side by side with their messages still ten to a
 * call, a sweep stops sending at its deadline and leaves the rest to the next, and sweep workers each cover their
 * share of the due index's shards, with a watermark per shard.
 */
class SweepWorkersTest {
    /** Runs due a few seconds ago (overdue, so their messages are visible at once; not late enough to catch up). */
    private static List<Job> overdueJobs(Punctual p, Instant now, int n) {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(Fixture.insertOnceJob(p, now.minusSeconds(10), now));
        }
        return jobs;
    }

    /** Every message the queue holds now, once each: a message sent twice would be received twice. */
    private static List<String> received(Punctual p) {
        return Fixture.receiveVisible(p).stream()
                .map(m -> m.jobId() + "/" + m.runId())
                .toList();
    }

    private static List<String> runsOf(List<Job> jobs) {
        return jobs.stream().map(j -> j.id() + "/" + j.pendingRunId()).toList();
    }

    @Test
    void aSweepOfAHundredJobsRunsTheirChainsSideBySideAndStillSendsTenMessagesACall() {
        Metering.enable();
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), new SettableClock(now));
        List<Job> jobs = overdueJobs(p, now, 100);
        double before = Metering.snapshot().getOrDefault("calls:Sqs:SendMessageBatch", 0.0);

        Sweeper.SweepReport report = p.sweeper.sweep();

        assertThat(report.sent()).isEqualTo(100);
        assertThat(report.marked()).isEqualTo(100);
        double calls = Metering.snapshot().getOrDefault("calls:Sqs:SendMessageBatch", 0.0) - before;
        // Ten full batches at best; a batch whose chains are busy elsewhere for 50 ms goes short (a busy machine's
        // store calls can take that long: 14-17 calls with three busy loops on two cores). Sent one chain at a
        // time, as a chain counted only once started did, it was 59.
        System.out.printf("SweepWorkersTest: 100 runs sent in %.0f SendMessageBatch calls%n", calls);
        assertThat(calls).as("SendMessageBatch calls for 100 runs").isBetween(10.0, 25.0);
        assertThat(received(p)).containsExactlyInAnyOrderElementsOf(runsOf(jobs));
    }

    @Test
    void aSweepStopsSendingAtItsDeadlineAndTheNextSendsTheRestEachRunOnce() {
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        SettableClock clock = SettableClock.ticking(start);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        List<Job> jobs = overdueJobs(p, start, 150);

        // A few hundred clock readings into the work: 150 runs take well over a thousand.
        Sweeper.SweepReport cut = p.sweeper.sweep(clock.instant().plusMillis(300), Sweeper.Worker.ALL);

        assertThat(cut.due()).isEqualTo(150);
        assertThat(cut.sent()).as("some sent before the deadline").isPositive();
        assertThat(cut.deferred()).as("the rest left").isPositive();
        assertThat(cut.sent() + cut.deferred()).isEqualTo(150);
        assertThat(cut.failed()).isZero();
        long stillScheduled = jobs.stream()
                .filter(j -> Fixture.run(p, j.id(), j.pendingRunId()).state() == RunState.SCHEDULED)
                .count();
        assertThat(stillScheduled).as("the deferred runs are as they were").isEqualTo(cut.deferred());
        Instant dueBucket = start.minusSeconds(10).truncatedTo(ChronoUnit.MINUTES);
        assertThat(p.watermarks
                        .get(IntStream.range(0, p.buckets.shards()).boxed().toList())
                        .from()
                        .values())
                .as("no shard's watermark passed the deferred runs' bucket: the next sweep reads it again")
                .allSatisfy(m -> assertThat(m).isBeforeOrEqualTo(dueBucket));

        Sweeper.SweepReport rest = p.sweeper.sweep();

        assertThat(rest.sent()).isEqualTo(cut.deferred());
        assertThat(received(p))
                .as("every run's message exactly once")
                .containsExactlyInAnyOrderElementsOf(runsOf(jobs));
        assertThat(jobs)
                .allSatisfy(
                        j -> assertThat(Fixture.run(p, j.id(), j.pendingRunId()).state())
                                .isEqualTo(RunState.QUEUED));
    }

    @Test
    void twoWorkersEachSweepTheirOwnShardsAndMoveOnlyTheirWatermarks() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().shards(4).build(), new SettableClock(now));
        List<Job> jobs = overdueJobs(p, now, 40);

        Sweeper.SweepReport first = p.sweeper.sweep(Instant.MAX, new Sweeper.Worker(1, 2));

        List<Job> odd = jobs.stream()
                .filter(j -> p.buckets.shardOf(j.id(), j.pendingRunId()) % 2 == 1)
                .toList();
        assertThat(odd).as("the generator spread the runs").isNotEmpty().hasSizeLessThan(40);
        assertThat(first.sent()).isEqualTo(odd.size());
        assertThat(jobs)
                .allSatisfy(
                        j -> assertThat(Fixture.run(p, j.id(), j.pendingRunId()).state())
                                .isEqualTo(odd.contains(j) ? RunState.QUEUED : RunState.SCHEDULED));
        assertThat(shardsWithAMark(p))
                .as("worker 1 of 2 wrote the marks of shards 1 and 3 only")
                .containsExactlyInAnyOrder(1, 3);

        Sweeper.SweepReport second = p.sweeper.sweep(Instant.MAX, new Sweeper.Worker(0, 2));

        assertThat(second.sent()).isEqualTo(40 - odd.size());
        assertThat(shardsWithAMark(p)).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(received(p)).containsExactlyInAnyOrderElementsOf(runsOf(jobs));
    }

    /** The shards with a watermark of their own (read together, one lends the others its mark). */
    private static Set<Integer> shardsWithAMark(Punctual p) {
        return p.watermarks.own().keySet();
    }

    @Test
    void fourWorkersSweepingAtOnceSendEveryRunOnce() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().shards(8).build(), new SettableClock(now));
        List<Job> jobs = overdueJobs(p, now, 80);

        List<CompletableFuture<Sweeper.SweepReport>> sweeps = IntStream.range(0, 4)
                .mapToObj(i ->
                        CompletableFuture.supplyAsync(() -> p.sweeper.sweep(Instant.MAX, new Sweeper.Worker(i, 4))))
                .toList();
        int sent = sweeps.stream().mapToInt(f -> f.join().sent()).sum();

        assertThat(sent).isEqualTo(80);
        assertThat(received(p)).containsExactlyInAnyOrderElementsOf(runsOf(jobs));
        Map<Integer, Instant> marks =
                p.watermarks.get(IntStream.range(0, 8).boxed().toList()).from();
        assertThat(marks).hasSize(8);
    }

    /** What a process dying in a call looks like to the code above it: nothing catches it. */
    private static final class Died extends Error {
        Died() {
            super("injected: the sweeper's process died");
        }
    }

    @Test
    void anErrorInOneChainEndsTheDispatchAndTheNextSweepFinishesTheWork() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Settings settings = TestStack.isolatedSettings().build();
        Punctual p = Fixture.stack(settings, new SettableClock(now));
        List<Job> jobs = overdueJobs(p, now, 100);
        AtomicInteger transactions = new AtomicInteger();
        DynamoDbClient dying = DynamoDbClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .region(TestStack.target().region())
                .credentialsProvider(TestStack.target().credentials())
                .endpointOverride(TestStack.target().dynamodb())
                .overrideConfiguration(o -> o.addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                        if (c.request() instanceof TransactWriteItemsRequest && transactions.incrementAndGet() == 3) {
                            throw new Died();
                        }
                    }
                }))
                .build();
        Punctual doomed = new Punctual(
                dying,
                Fixture.sqs(),
                AwsClients.s3(TestStack.target()),
                AwsClients.presigner(TestStack.target()),
                settings,
                new SettableClock(now));

        assertThatThrownBy(doomed.sweeper::sweep).isInstanceOf(Died.class);

        long marked = jobs.stream()
                .filter(j -> Fixture.run(p, j.id(), j.pendingRunId()).state() == RunState.QUEUED)
                .count();
        assertThat(marked).as("the other chains stopped at their next step").isLessThan(100);
        Sweeper.SweepReport rest = p.sweeper.sweep();
        assertThat(rest.failed()).isZero();
        assertThat(jobs)
                .allSatisfy(
                        j -> assertThat(Fixture.run(p, j.id(), j.pendingRunId()).state())
                                .isEqualTo(RunState.QUEUED));
        // Runs sent and not marked before the error are sent again (their claim absorbs the second message).
        assertThat(received(p)).containsAll(runsOf(jobs));
    }

    @Test
    void moreWorkersThanShardsIsRefused() {
        Punctual p = Fixture.stack(TestStack.isolatedSettings().shards(2).build(), new SettableClock(Instant.now()));
        assertThatThrownBy(() -> p.sweeper.sweep(Instant.MAX, new Sweeper.Worker(2, 3)))
                .hasMessageContaining("3 sweep workers for 2 shards");
        assertThatThrownBy(() -> new Sweeper.Worker(2, 2)).hasMessageContaining("0 to 1 of 2");
    }
}
