package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * A run slot covers a run from its claim until its processes are gone: the next run starts in it while the outcome
 * of the one before is still being recorded (its log uploaded, its result written), on an executor of one slot.
 */
class RunSlotTest {
    @TempDir
    Path dir;

    @Test
    void theNextRunStartsInTheSlotWhileTheOutcomeOfTheOneBeforeIsRecorded() throws Exception {
        Punctual setup = Fixture.stack(
                TestStack.isolatedSettings()
                        .executorConcurrency(1)
                        // Every log uploaded, none kept on its run: the upload is where the test holds an outcome.
                        .inlineLogBytes(0)
                        .build(),
                Clock.systemUTC());
        Path witness = Fixture.witness(dir);
        CountDownLatch secondStarted = new CountDownLatch(1);
        AtomicInteger held = new AtomicInteger();
        // The first log upload at a run's end waits until the other run has started (20 s at most).
        S3Client slowLogs = Fixture.s3With(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                if (c.request() instanceof PutObjectRequest p
                        && p.key().startsWith("logs/")
                        && held.getAndIncrement() == 0) {
                    try {
                        secondStarted.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        });
        Punctual executorSide = Fixture.executorSide(setup.settings, Fixture.dynamo(), slowLogs);
        JobView first = Fixture.attemptWitnessJob(setup, "first", witness, 1);
        JobView second = Fixture.attemptWitnessJob(setup, "second", witness, 1);

        try (ExecutorPool pool = executorSide.startExecutor("one-slot", dir.resolve("exec"), 1)) {
            // One slot: both binaries have run while the first outcome's log upload is held.
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> Fixture.lines(witness).size() == 2);
            assertThat(held.get()).as("an upload was held").isPositive();
            secondStarted.countDown();
            for (JobView job : new JobView[] {first, second}) {
                Run run = await().atMost(Duration.ofSeconds(30))
                        .until(
                                () -> Fixture.latestRun(setup, job.id()),
                                r -> r.state().terminal());
                assertThat(run.state()).isEqualTo(RunState.SUCCEEDED);
                assertThat(run.logKey()).as("its log uploaded").isNotNull();
            }
        }
    }
}
