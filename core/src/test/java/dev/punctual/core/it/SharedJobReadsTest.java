package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.job.SharedJobReads;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;

/**
 * The executor's strong reads of the jobs of runs claimed at once share calls (SharedJobReads, on DynamoDB Local):
 * the reads asked while one is in flight go in one strongly consistent BatchGetItem, each answered with its own job
 * (or none), as its own GetItem would have been.
 */
class SharedJobReadsTest {
    private final Instant now = Instant.parse("2030-01-01T10:00:00Z");
    private final SettableClock clock = new SettableClock(now);
    private final Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);

    @Test
    void readsAskedAtOnceShareOneStrongCallAndTwoReadsOfOneJobNeverShareOne() throws Exception {
        AtomicInteger single = new AtomicInteger();
        List<Integer> batchSizes = new CopyOnWriteArrayList<>();
        List<Boolean> consistent = new CopyOnWriteArrayList<>();
        CountDownLatch firstCallInFlight = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        var dynamo = Fixture.dynamoWith(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                if (c.request() instanceof GetItemRequest g) {
                    consistent.add(g.consistentRead());
                    if (single.getAndIncrement() == 0) {
                        // The first read holds its call until every other read has been asked.
                        firstCallInFlight.countDown();
                        try {
                            releaseFirst.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
                if (c.request() instanceof BatchGetItemRequest b) {
                    b.requestItems().values().forEach(k -> {
                        batchSizes.add(k.keys().size());
                        consistent.add(k.consistentRead());
                    });
                }
            }
        });
        Punctual executorSide = Fixture.executorSide(p.settings, dynamo, Fixture.s3());
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            jobs.add(Fixture.insertOnceJob(p, now.plusSeconds(60), now));
        }
        // One of them deleted (its item stays, DELETED), and one id that has no job at all.
        assertThat(Fixture.markDeleted(
                        p, jobs.get(5).id(), jobs.get(5).owner(), jobs.get(5).pendingRunId(), now))
                .isTrue();
        ExecutorService threads = Executors.newFixedThreadPool(10);
        try (SharedJobReads reads = new SharedJobReads(executorSide.jobs, "test")) {
            Future<Optional<Job>> first =
                    threads.submit(() -> reads.get(jobs.get(0).id()));
            firstCallInFlight.await();
            List<Future<Optional<Job>>> rest = new ArrayList<>();
            for (int i = 1; i < 6; i++) {
                String id = jobs.get(i).id();
                rest.add(threads.submit(() -> reads.get(id)));
            }
            Future<Optional<Job>> missing = threads.submit(() -> reads.get("job_none"));
            Future<Optional<Job>> again =
                    threads.submit(() -> reads.get(jobs.get(1).id()));
            await().atMost(Duration.ofSeconds(10)).until(() -> reads.waiting() == 7);
            releaseFirst.countDown();
            assertThat(first.get()).map(Job::id).contains(jobs.get(0).id());
            for (int i = 1; i < 5; i++) {
                Job read = rest.get(i - 1).get().orElseThrow();
                assertThat(read.id()).isEqualTo(jobs.get(i).id());
                assertThat(read.state()).isEqualTo(JobState.ACTIVE);
                assertThat(read.binaryId()).isEqualTo(jobs.get(i).binaryId());
            }
            assertThat(rest.get(4).get()).map(Job::state).contains(JobState.DELETED);
            assertThat(missing.get()).isEmpty();
            assertThat(again.get()).map(Job::id).contains(jobs.get(1).id());
        } finally {
            threads.shutdownNow();
        }
        assertThat(batchSizes)
                .as("the five other jobs and the missing one in one call; job 1's second read in the next")
                .containsExactly(6);
        assertThat(single.get())
                .as("the first read, then job 1's second one, each alone")
                .isEqualTo(2);
        assertThat(consistent).as("every call strongly consistent").hasSize(3).containsOnly(true);
    }

    @Test
    void aReadAskedOnceTheReadsAreClosedFailsRatherThanWaitsForever() {
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(60), now);
        SharedJobReads reads = new SharedJobReads(p.jobs, "closed");
        reads.close();
        assertThatThrownBy(() -> reads.get(job.id()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
