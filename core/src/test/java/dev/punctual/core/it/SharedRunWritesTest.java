package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.SharedRunWrites;
import dev.punctual.core.run.Transition;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchExecuteStatementRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The executor's run writes made as the statements of one BatchExecuteStatement (RunRepository.applyAll) come to the
 * same items and the same wins and losses as the same writes made one by one (UpdateItem), on DynamoDB Local; and
 * writes asked at once share calls (SharedRunWrites).
 */
class SharedRunWritesTest {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private final Instant now = Instant.parse("2030-01-01T10:00:00Z");
    private final SettableClock clock = new SettableClock(now);
    private final Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);

    /** A job whose run, due now, is QUEUED; its id and run id. */
    private Job queued() {
        Job job = Fixture.insertOnceJob(p, now, now);
        assertThat(Fixture.markQueued(p, job, now)).isTrue();
        return job;
    }

    private Change claimOf(Job job, String executor) {
        return Change.of(Transition.CLAIM, job.id(), job.pendingRunId(), now).withLease(executor, now.plus(LEASE));
    }

    private Change claimByEx1(Run r) {
        return Change.of(Transition.CLAIM, r.jobId(), r.runId(), now).withLease("ex-1", now.plus(LEASE));
    }

    private Run runOf(Job job) {
        return Fixture.run(p, job.id(), job.pendingRunId());
    }

    /** The attributes of the run's item but its key and the indexes' that name its job or run. */
    private Map<String, AttributeValue> itemOf(Job job) {
        Map<String, AttributeValue> item = new java.util.HashMap<>(Fixture.rawRun(p, job.id(), job.pendingRunId()));
        List.of("jobId", "runId", "dueShard", "dueSort", "ownerShard").forEach(item::remove);
        return item;
    }

    /**
     * Two runs taken through the same writes, one by UpdateItem and one by a batch of two statements (the second an
     * unrelated run's claim, so that the batch is a batch): same answers, same items.
     */
    private void sameEitherWay(List<Function<Run, Change>> steps) {
        Job alone = queued();
        Job batched = queued();
        for (Function<Run, Change> step : steps) {
            Change one = step.apply(runOf(alone));
            Change other = step.apply(runOf(batched));
            RunRepository.Result single = p.runs.applyReturningNew(one);
            Job filler = queued();
            List<RunRepository.Applied> both =
                    p.runs.applyAll(List.of(other, claimOf(filler, "ex-filler")), List.of(true, false));
            assertThat(both.get(0).error()).isNull();
            assertThat(both.get(1).error()).isNull();
            assertThat(both.get(1).result().won()).isTrue();
            assertThat(both.get(0).result().won()).as(one.transition().name()).isEqualTo(single.won());
            assertThat(itemOf(batched)).as(one.transition().name()).isEqualTo(itemOf(alone));
            if (single.won()) {
                assertThat(both.get(0).result().found())
                        .usingRecursiveComparison()
                        .ignoringFields("jobId", "runId")
                        .isEqualTo(single.found());
            }
        }
    }

    @Test
    void anAttemptWrittenInBatchesIsTheSameAsOneWrittenOneByOne() {
        sameEitherWay(List.of(
                this::claimByEx1,
                r -> Change.of(Transition.LAUNCH, r, now).withLease("ex-1", now.plus(LEASE)),
                r -> Change.of(Transition.HEARTBEAT, r, now.plusSeconds(20)).withLease("ex-1", now.plusSeconds(80)),
                r -> Change.of(Transition.SUCCEED, r, now.plusSeconds(30))
                        .withExecutor("ex-1")
                        .withExitCode(0)
                        .withLog("done\n")));
    }

    @Test
    void anOutcomeThatRecordsItsStartAndAFailureWithRetriesAreTheSameToo() {
        sameEitherWay(List.of(
                this::claimByEx1,
                r -> Change.of(Transition.FAIL, r, now.plusSeconds(1))
                        .withExecutor("ex-1")
                        .withExitCode(3)
                        .withError("exited with code 3")
                        .withStartedAt(now)));
    }

    @Test
    void aReleaseAndAWithdrawalMoveTheirCountersAsOneByOne() {
        sameEitherWay(List.of(
                this::claimByEx1,
                r -> Change.of(Transition.RELEASE, r, now.plusSeconds(1))
                        .withExecutor("ex-1")
                        .withError("executor shutting down")));
        sameEitherWay(List.of(
                this::claimByEx1,
                r -> Change.of(Transition.WITHDRAW, r, now.plusSeconds(1))
                        .withExecutor("ex-1")
                        .withError("job deleted")));
    }

    @Test
    void aLostStatementSaysSoWithTheRunAsItWasAndTheOthersStillWin() {
        Job a = queued();
        Job b = queued();
        assertThat(p.runs.applyReturningNew(claimOf(a, "ex-first")).won()).isTrue();
        List<RunRepository.Applied> answers =
                p.runs.applyAll(List.of(claimOf(a, "ex-second"), claimOf(b, "ex-second")), List.of(true, true));
        assertThat(answers.get(0).result().won()).isFalse();
        assertThat(answers.get(0).result().found().leaseOwner()).isEqualTo("ex-first");
        assertThat(answers.get(0).result().found().state()).isEqualTo(RunState.RUNNING);
        assertThat(answers.get(1).result().won()).isTrue();
        assertThat(answers.get(1).result().found().attempt()).isEqualTo(1);
        assertThat(runOf(a).leaseOwner()).as("nothing written by the lost one").isEqualTo("ex-first");
    }

    @Test
    void writesAskedAtOnceShareCallsAndTwoWritesOfOneRunNeverShareOne() throws Exception {
        AtomicInteger single = new AtomicInteger();
        AtomicInteger batches = new AtomicInteger();
        List<Integer> sizes = new java.util.concurrent.CopyOnWriteArrayList<>();
        CountDownLatch firstCallInFlight = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        var dynamo = Fixture.dynamoWith(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                if (c.request() instanceof UpdateItemRequest && single.getAndIncrement() == 0) {
                    // The first write holds its call until every other write has been asked.
                    firstCallInFlight.countDown();
                    try {
                        releaseFirst.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                if (c.request() instanceof BatchExecuteStatementRequest b) {
                    batches.incrementAndGet();
                    sizes.add(b.statements().size());
                }
            }
        });
        Punctual executorSide = Fixture.executorSide(p.settings, dynamo, Fixture.s3());
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            jobs.add(queued());
        }
        ExecutorService threads = Executors.newFixedThreadPool(12);
        try (SharedRunWrites writes = new SharedRunWrites(executorSide.runs, "test")) {
            Future<RunRepository.Result> first =
                    threads.submit(() -> writes.applyReturningNew(claimOf(jobs.get(0), "ex")));
            firstCallInFlight.await();
            // While the first call is in flight: claims of eight other runs, and a second claim of one of them.
            List<Future<RunRepository.Result>> rest = new ArrayList<>();
            for (int i = 1; i < 9; i++) {
                Job job = jobs.get(i);
                rest.add(threads.submit(() -> writes.applyReturningNew(claimOf(job, "ex"))));
            }
            Future<RunRepository.Result> again =
                    threads.submit(() -> writes.applyReturningNew(claimOf(jobs.get(1), "ex-again")));
            await().atMost(Duration.ofSeconds(10)).until(() -> writes.waiting() == 9);
            releaseFirst.countDown();
            assertThat(first.get().won()).isTrue();
            for (Future<RunRepository.Result> f : rest.subList(1, rest.size())) {
                assertThat(f.get().won()).isTrue();
                assertThat(f.get().found().attempt()).isEqualTo(1);
            }
            // Run 1 was claimed twice at once: one won, in the batch; the other went in a call of its own, and lost.
            RunRepository.Result one = rest.getFirst().get();
            RunRepository.Result other = again.get();
            assertThat(one.won()).isNotEqualTo(other.won());
            RunRepository.Result lost = one.won() ? other : one;
            assertThat(lost.found().leaseOwner()).isEqualTo(one.won() ? "ex" : "ex-again");
        } finally {
            threads.shutdownNow();
        }
        assertThat(batches.get()).as("the eight other runs' claims in one call").isEqualTo(1);
        assertThat(sizes).containsExactly(8);
        assertThat(single.get())
                .as("the first claim, then run 1's second one, each alone")
                .isEqualTo(2);
    }

    @Test
    void aWriteAskedOnceTheWritesAreClosedFailsRatherThanWaitsForever() {
        Job job = queued();
        SharedRunWrites writes = new SharedRunWrites(p.runs, "closed");
        writes.close();
        assertThatThrownBy(() -> writes.apply(claimOf(job, "ex")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(runOf(job).state()).as("nothing written").isEqualTo(RunState.QUEUED);
    }
}
