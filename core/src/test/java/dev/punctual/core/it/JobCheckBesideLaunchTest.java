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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

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

    /** An executor's side of {@code p} whose client runs {@code change} once, right after the first request {@code when} takes. */
    private static Punctual executorChangingTheJobAfter(
            Punctual p, Settings s, Predicate<SdkRequest> when, Runnable change, List<Instant> strongReads) {
        AtomicBoolean done = new AtomicBoolean();
        String jobs = p.resources.jobs().name();
        DynamoDbClient dynamo = Fixture.dynamoWith(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                if (c.request() instanceof GetItemRequest g
                        && g.tableName().equals(jobs)
                        && Boolean.TRUE.equals(g.consistentRead())) {
                    strongReads.add(Instant.now());
                }
            }

            @Override
            public void afterExecution(Context.AfterExecution c, ExecutionAttributes a) {
                if (when.test(c.request()) && done.compareAndSet(false, true)) {
                    change.run();
                }
            }
        });
        return Fixture.executorSide(s, dynamo, Fixture.s3());
    }

    /** The executor's first read of the job: eventually consistent, before the claim. */
    private static Predicate<SdkRequest> firstRead(Punctual p) {
        String jobs = p.resources.jobs().name();
        return r ->
                r instanceof GetItemRequest g && g.tableName().equals(jobs) && !Boolean.TRUE.equals(g.consistentRead());
    }

    /** The claim: the executor's first write of a run (its conditional update). */
    private static Predicate<SdkRequest> claim(Punctual p) {
        String runs = p.resources.runs().name();
        return r -> r instanceof UpdateItemRequest u && u.tableName().equals(runs);
    }

    /** {@code strongReads}: when the executor's strong reads of the job were sent. */
    private record Setup(Punctual p, JobView job, Punctual executor, RunWorker worker, List<Instant> strongReads) {}

    /** An hourly job whose first run is due in seconds, and a worker whose first read of it is followed by {@code change}. */
    private Setup setUp(Consumer<Setup> change) {
        return setUp(TestStack.isolatedSettings().build(), JobCheckBesideLaunchTest::firstRead, change);
    }

    private Setup setUp(Settings s, Function<Punctual, Predicate<SdkRequest>> when, Consumer<Setup> change) {
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
        List<Instant> strongReads = new CopyOnWriteArrayList<>();
        Punctual executor =
                executorChangingTheJobAfter(p, s, when.apply(p), () -> change.accept(holder[0]), strongReads);
        holder[0] = new Setup(p, job, executor, executor.worker("ex-check", tmp.resolve("ex"), timer), strongReads);
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
        s.executor().queue.flushDeletes();
        assertThat(Fixture.queueCounts(s.p()).total()).isZero();
    }

    @Test
    void aJobPausedAfterItsRunWasClaimedAheadButBeforeItsInstantNeverStartsIt() throws Exception {
        Instant[] claimedAt = new Instant[1];
        Setup s = setUp(TestStack.isolatedSettings().build(), JobCheckBesideLaunchTest::claim, x -> {
            claimedAt[0] = Instant.now();
            x.p().lifecycle.pause(OWNER, x.job().id());
        });

        assertThat(s.worker().handle(Fixture.nextMessage(s.p()))).isEqualTo(RunWorker.Outcome.CANCELLED);
        Run withdrawn = Fixture.run(s.p(), s.job().id(), firstRun(s).runId());
        assertThat(claimedAt[0])
                .as("claimed (and paused) before the run's instant")
                .isBefore(withdrawn.scheduledAt());
        assertThat(withdrawn.state()).isEqualTo(RunState.CANCELLED);
        assertThat(withdrawn.error()).isEqualTo("job paused");
        assertThat(withdrawn.attempt()).as("its claim undone").isZero();
        assertThat(withdrawn.launchedAt()).isNull();
        assertThat(withdrawn.log()).as("nothing ran").isNull();
        assertThat(s.strongReads())
                .as("the job's check was read once the instant had come, not as the run was claimed")
                .singleElement()
                .satisfies(at -> assertThat(at).isAfterOrEqualTo(withdrawn.scheduledAt()));
    }
}
