package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.RunWorker;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;

/**
 * Under {@code overlap: allow} the job's strong read after the claim goes on beside the launch, and the binary
 * starts only once it has said yes: a job deleted, or replaced, between the executor's first read of it and the
 * claim never runs as it was read. The change is made exactly there, by the executor's own DynamoDB client, right
 * after that first read.
 */
class JobCheckBesideLaunchTest {
    @TempDir
    Path tmp;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    /** An executor's side of {@code p} whose client runs {@code change} once, right after the job's first read. */
    private static Punctual executorChangingTheJobAfterItsFirstRead(Punctual p, Settings s, Runnable change) {
        String jobs = p.resources.jobs().name();
        AtomicBoolean done = new AtomicBoolean();
        DynamoDbClient dynamo = Fixture.dynamoWith(new ExecutionInterceptor() {
            @Override
            public void afterExecution(Context.AfterExecution c, ExecutionAttributes a) {
                if (c.request() instanceof GetItemRequest g
                        && g.tableName().equals(jobs)
                        && !Boolean.TRUE.equals(g.consistentRead())
                        && done.compareAndSet(false, true)) {
                    change.run();
                }
            }
        });
        return Fixture.executorSide(s, dynamo, Fixture.s3());
    }

    private record Setup(Punctual p, JobView job, Punctual executor, RunWorker worker) {}

    /** An hourly job whose first run is due in seconds, and a worker whose first read of it is followed by {@code change}. */
    private Setup setUp(Consumer<Setup> change) {
        Settings s = TestStack.isolatedSettings().build();
        Punctual p = Fixture.stack(s, Clock.systemUTC());
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("echo \"mark=$MARK\"\n"));
        // Due in 3 to 4 s: sent ahead, visible a second or two before it is due.
        Instant start = Instant.now().plusSeconds(4).truncatedTo(ChronoUnit.SECONDS);
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("hourly", binaryId, Fixture.interval(Duration.ofHours(1), start))
                        .env(Map.of("MARK", "old"))
                        .build());
        Setup[] holder = new Setup[1];
        Punctual executor = executorChangingTheJobAfterItsFirstRead(p, s, () -> change.accept(holder[0]));
        holder[0] = new Setup(p, job, executor, executor.worker("ex-check", tmp.resolve("ex"), timer));
        return holder[0];
    }

    private static Run firstRun(Setup s) {
        return Fixture.runsOf(s.p(), s.job().id()).stream()
                .filter(r -> r.attempt() > 0 || r.state() != RunState.SCHEDULED)
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aJobReplacedBetweenItsReadAndTheClaimStartsWithTheNewDefinition() throws Exception {
        Setup s = setUp(x -> x.p().jobService
                .update(
                        OWNER,
                        x.job().id(),
                        "*",
                        JobRequest.builder("hourly", x.job().binaryId(), x.job().schedule())
                                .env(Map.of("MARK", "new"))
                                .build()));

        assertThat(s.worker().handle(Fixture.nextMessage(s.p()))).isEqualTo(RunWorker.Outcome.RELEASED);
        Run handedBack = firstRun(s);
        assertThat(handedBack.state()).isEqualTo(RunState.FAILED);
        assertThat(handedBack.error()).contains("replaced");

        assertThat(s.worker().handle(Fixture.nextMessage(s.p())))
                .as("at once, read again")
                .isEqualTo(RunWorker.Outcome.SUCCEEDED);
        Run ran = firstRun(s);
        assertThat(ran.state()).isEqualTo(RunState.SUCCEEDED);
        assertThat(s.p().jobService.log(OWNER, s.job().id(), ran.runId())).isEqualTo("mark=new\n");
    }

    @Test
    void aJobDeletedBetweenItsReadAndTheClaimNeverStartsItsRun() throws Exception {
        Setup s = setUp(x -> x.p().jobService.delete(OWNER, x.job().id()));

        assertThat(s.worker().handle(Fixture.nextMessage(s.p()))).isEqualTo(RunWorker.Outcome.CANCELLED);
        Run withdrawn = Fixture.run(s.p(), s.job().id(), firstRun(s).runId());
        assertThat(withdrawn.state()).isEqualTo(RunState.CANCELLED);
        assertThat(withdrawn.error()).isEqualTo("job deleted");
        assertThat(withdrawn.attempt()).as("its claim undone").isZero();
        assertThat(withdrawn.launchedAt()).isNull();
        assertThat(withdrawn.log()).as("nothing ran").isNull();
        assertThat(Fixture.queueCounts(s.p()).total()).isZero();
    }
}
