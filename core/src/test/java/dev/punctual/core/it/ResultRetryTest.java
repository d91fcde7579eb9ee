package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.testing.TestStack;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * A binary that exited is recorded by the attempt that ran it, through a passing store outage: the result write is
 * tried again while the executor's lease lasts, and a log that cannot be uploaded does not hold the outcome back.
 * The binary never runs a second time. (Injected by SDK interceptors on real clients of the emulators.)
 */
class ResultRetryTest {
    @TempDir
    Path dir;

    /** The job's newest run, once it has ended (within 30 s). */
    private static Run awaitEnd(Punctual p, String jobId) {
        return await().atMost(Duration.ofSeconds(30))
                .until(() -> Fixture.latestRun(p, jobId), r -> r.state().terminal());
    }

    /** The outcome's write: it sets finishedAt (a claim removes it). */
    private static boolean isResult(Object request) {
        return request instanceof UpdateItemRequest u
                && u.updateExpression() != null
                && u.updateExpression().contains("#finishedAt = ");
    }

    @Test
    void aResultWriteThatFailsForAWhileIsRetriedAndTheBinaryRunsOnce() throws Exception {
        Settings settings = Fixture.shortLease(Duration.ofSeconds(6));
        Punctual setup = Fixture.stack(settings, Clock.systemUTC());
        AtomicInteger failed = new AtomicInteger();
        // The first 5 result writes fail, about 3 s of backoff: as a store outage around the write would.
        DynamoDbClient flaky = Fixture.dynamoFailingWhen(r -> isResult(r) && failed.getAndIncrement() < 5);
        // And every log upload fails.
        S3Client noLogs = Fixture.s3With(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                if (c.request() instanceof PutObjectRequest p && p.key().startsWith("logs/")) {
                    throw SdkClientException.create("injected: S3 unreachable");
                }
            }
        });
        Punctual executorSide = Fixture.executorSide(settings, flaky, noLogs);

        Path witness = Fixture.witness(dir);
        var job = Fixture.attemptWitnessJob(setup, "outage", witness, 3);

        try (ExecutorPool pool = executorSide.startExecutor("through-outage", dir.resolve("exec"), 1)) {
            Run run = awaitEnd(setup, job.id());
            assertThat(run.state()).isEqualTo(RunState.SUCCEEDED);
            assertThat(run.attempt()).as("recorded by the attempt that ran it").isEqualTo(1);
            assertThat(run.logKey())
                    .as("recorded without the log it could not upload")
                    .isNull();
            assertThat(failed.get())
                    .as("the result write failed 5 times, then got through")
                    .isEqualTo(6);
            assertThat(Fixture.lines(witness)).containsExactly("ran 1");
        }
    }

    /** The lease renewal (not the outcome: that one also sets finishedAt). */
    private static boolean isRenewal(Object request) {
        return request instanceof UpdateItemRequest u
                && u.expressionAttributeNames() != null
                && u.expressionAttributeNames().containsValue("leaseExpiry")
                && !u.expressionAttributeNames().containsValue("finishedAt");
    }

    @Test
    void anOutageBetweenTheClaimAndTheStartSpendsNoAttempt() throws Exception {
        Settings settings = Fixture.shortLease(Duration.ofSeconds(6));
        Punctual setup = Fixture.stack(settings, Clock.systemUTC());
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger renewals = new AtomicInteger();
        // Right after the claim: the job's strong read (its check after the claim) fails twice, then the renewal
        // before the start 3 times.
        DynamoDbClient flaky = Fixture.dynamoFailingWhen(r -> (r instanceof GetItemRequest g
                        && !g.key().containsKey("runId")
                        && Boolean.TRUE.equals(g.consistentRead())
                        && reads.getAndIncrement() < 2)
                || (isRenewal(r) && renewals.getAndIncrement() < 3));
        Punctual executorSide = Fixture.executorSide(settings, flaky, AwsClients.s3(TestStack.target()));

        Path witness = Fixture.witness(dir);
        // One attempt only: before the fix, either failure spent it, and the run ended DEAD without ever running.
        // The binary runs for longer than the launch's delay, so that its start is written by the launch (a
        // shorter one has it written with its outcome).
        var job = Fixture.witnessJob(
                setup, "pre-start-outage", "sleep 3; echo \"ran $SCHEDULER_ATTEMPT\" >> \"$WITNESS\"", witness, 60, 1);

        try (ExecutorPool pool = executorSide.startExecutor("through-outage", dir.resolve("exec"), 1)) {
            Run run = awaitEnd(setup, job.id());
            assertThat(run.state()).as("error: %s", run.error()).isEqualTo(RunState.SUCCEEDED);
            assertThat(run.attempt()).isEqualTo(1);
            assertThat(reads.get())
                    .as("the job's read after the claim failed twice, then got through")
                    .isGreaterThanOrEqualTo(3);
            assertThat(renewals.get())
                    .as("the renewal failed 3 times, then got through")
                    .isGreaterThanOrEqualTo(4);
            assertThat(Fixture.lines(witness)).containsExactly("ran 1");
        }
    }

    @Test
    void aRunThatGetsToItsStartLateInItsLeaseRenewsItFirstAndSurvivesAnOutageAtItsOutcome() throws Exception {
        // Lease 4 s (5 s from the claim, with the launch's delay). The job's read after the claim fails 5 times
        // (about 3.1 s of backoff), so the binary gets to its start with under half the lease left; then its outcome
        // write and the lease's renewals fail for 3 s. Renewed before the start, the attempt outlasts that; without the
        // renewal its lease ran
        // out under the failing outcome and the binary ran a second time (fault suite, scenario 14).
        Settings settings = Fixture.shortLease(Duration.ofSeconds(4));
        Punctual setup = Fixture.stack(settings, Clock.systemUTC());
        AtomicInteger reads = new AtomicInteger();
        java.util.concurrent.atomic.AtomicLong resultsFailUntil = new java.util.concurrent.atomic.AtomicLong();
        DynamoDbClient flaky = Fixture.dynamoFailingWhen(r -> {
            if (r instanceof GetItemRequest g
                    && !g.key().containsKey("runId")
                    && Boolean.TRUE.equals(g.consistentRead())) {
                return reads.getAndIncrement() < 5;
            }
            // From the outcome's first write on, for 3 s, it fails and so do the lease's renewals: an outage.
            long now = System.nanoTime();
            if (isResult(r)) {
                resultsFailUntil.compareAndSet(0, now + Duration.ofSeconds(3).toNanos());
            }
            return (isResult(r) || isRenewal(r)) && resultsFailUntil.get() != 0 && now < resultsFailUntil.get();
        });
        Punctual executorSide = Fixture.executorSide(settings, flaky, AwsClients.s3(TestStack.target()));
        Path witness = Fixture.witness(dir);
        var job = Fixture.attemptWitnessJob(setup, "late-start", witness, 3);

        try (ExecutorPool pool = executorSide.startExecutor("late-start", dir.resolve("exec"), 1)) {
            Run run = awaitEnd(setup, job.id());
            assertThat(run.state()).as("error: %s", run.error()).isEqualTo(RunState.SUCCEEDED);
            assertThat(reads.get())
                    .as("the job's read failed 5 times, then got through")
                    .isGreaterThanOrEqualTo(6);
            assertThat(resultsFailUntil.get())
                    .as("the outcome's write failed for a while")
                    .isPositive();
            assertThat(run.attempt()).as("recorded by the attempt that ran it").isEqualTo(1);
            assertThat(Fixture.lines(witness)).containsExactly("ran 1");
        }
    }
}
