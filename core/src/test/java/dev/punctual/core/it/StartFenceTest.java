package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.RunWorker;
import dev.punctual.core.job.JobState;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The fence of a run claimed ahead of its instant (under {@code overlap: allow}): its job is read strongly right
 * after the claim, and its binary is let start at the instant with nothing in between. A job deleted, paused or
 * replaced before that read never runs as it was; a pause that lands after it answers only once the run has started
 * (or, when the executor gets to the instant late, the job is read again and the run withdrawn): no run starts after
 * the pause has answered. Each change is made exactly where it matters, from the executor's own DynamoDB client.
 */
class StartFenceTest extends WorkerTest {
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
    private record Setup(
            Punctual p, JobView job, Instant due, Punctual executor, RunWorker worker, List<Instant> strongReads) {}

    /**
     * An hourly job whose first run is due in seconds, and a worker whose first read of it is followed by {@code
     * change}. The run's message is sent again without its hint, as a message delivered again, or one whose sweep
     * found its job inactive, is read: a hinted message (a first run sent as its job was created, or any run of an
     * active job whose runs may overlap, as the sweeper sends it) is claimed with no read before the claim.
     */
    private Setup setUp(Consumer<Setup> change) {
        Setup s = setUp(TestStack.isolatedSettings().build(), StartFenceTest::firstRead, change);
        Delivery hinted = Fixture.nextMessage(s.p());
        RunMessage m = RunMessage.decode(hinted.body());
        assertThat(m.hint()).isNotNull();
        s.p().queue.sendBatch(List.of(new RunMessage(m.jobId(), m.runId(), m.scheduledAt())), Instant.now());
        s.p().queue.delete(hinted.receiptHandle());
        s.p().queue.flushDeletes();
        return s;
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
        holder[0] =
                new Setup(p, job, start, executor, executor.worker("ex-check", tmp.resolve("ex"), timer), strongReads);
        return holder[0];
    }

    private static Run firstRun(Setup s) {
        return Fixture.runsOf(s.p(), s.job().id()).stream()
                .filter(r -> r.attempt() > 0 || r.state() != RunState.SCHEDULED)
                .findFirst()
                .orElseThrow();
    }

    /** The executor's strong read of the job: its check right after the claim (and again at a late start). */
    private static Predicate<SdkRequest> check(Punctual p) {
        String jobs = p.resources.jobs().name();
        return r ->
                r instanceof GetItemRequest g && g.tableName().equals(jobs) && Boolean.TRUE.equals(g.consistentRead());
    }

    /** A pause sent as another client would, from a thread of its own; its answer's instant. */
    private static CompletableFuture<Instant> pauseFromElsewhere(Setup x) {
        return CompletableFuture.supplyAsync(() -> {
            x.p().lifecycle.pause(OWNER, x.job().id());
            return Instant.now();
        });
    }

    /** Until the job is PAUSED in the store (the pause's own write has landed; its answer may still be waited for). */
    private static void awaitPausedInStore(Setup x) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> x.p().jobs.get(x.job().id(), true).orElseThrow().state() == JobState.PAUSED);
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

        assertThat(s.worker().handle(Fixture.nextMessage(s.p())))
                .as("the check after the claim read the new definition, which runs")
                .isEqualTo(RunWorker.Outcome.SUCCEEDED);
        Run ran = firstRun(s);
        assertThat(ran.attempt()).isEqualTo(1);
        assertThat(s.p().jobService.log(OWNER, s.job().id(), ran.runId())).isEqualTo("mark=new\n");
    }

    @Test
    void aJobDeletedBetweenItsReadAndTheClaimNeverStartsItsRun() throws Exception {
        Setup s = setUp(x -> x.p().deletions.delete(OWNER, x.job().id()));

        // The delete cancelled the queued run itself before it answered: the claim finds it over.
        assertThat(s.worker().handle(Fixture.nextMessage(s.p()))).isEqualTo(RunWorker.Outcome.ALREADY_DONE);
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
    void aJobPausedRightAfterItsRunWasClaimedAheadNeverStartsIt() throws Exception {
        List<CompletableFuture<Instant>> pause = new CopyOnWriteArrayList<>();
        Setup s = setUp(TestStack.isolatedSettings().build(), StartFenceTest::claim, x -> {
            pause.add(pauseFromElsewhere(x));
            awaitPausedInStore(x);
        });

        assertThat(s.worker().handle(Fixture.nextMessage(s.p()))).isEqualTo(RunWorker.Outcome.CANCELLED);
        Run withdrawn = Fixture.run(s.p(), s.job().id(), firstRun(s).runId());
        assertThat(withdrawn.state()).isEqualTo(RunState.CANCELLED);
        assertThat(withdrawn.error()).isEqualTo("job paused");
        assertThat(withdrawn.attempt()).as("its claim undone").isZero();
        assertThat(withdrawn.launchedAt()).isNull();
        assertThat(withdrawn.log()).as("nothing ran").isNull();
        assertThat(s.strongReads())
                .as("the job's check, read right after the claim, ahead of the instant")
                .first()
                .satisfies(at -> assertThat(at).isBefore(s.due()));
        assertThat(pause.getFirst().get(10, TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void aPauseThatLandsAfterTheCheckAnswersOnlyOnceTheRunHasStarted() throws Exception {
        List<CompletableFuture<Instant>> pause = new CopyOnWriteArrayList<>();
        Setup s = setUp(TestStack.isolatedSettings().build(), StartFenceTest::check, x -> {
            pause.add(pauseFromElsewhere(x));
            awaitPausedInStore(x);
        });

        RunWorker.Outcome outcome = s.worker().handle(Fixture.nextMessage(s.p()));
        Instant answered = pause.getFirst().get(10, TimeUnit.SECONDS);
        Run run = Fixture.run(s.p(), s.job().id(), firstRun(s).runId());
        assertThat(s.strongReads().getFirst())
                .as("checked ahead of the instant")
                .isBefore(s.due());
        if (outcome == RunWorker.Outcome.SUCCEEDED) {
            // The usual case: let start at its instant, as its check said it may, before the pause answered.
            assertThat(run.startedAt()).isAfterOrEqualTo(s.due()).isBefore(answered);
        } else {
            // The executor got to the instant later than RELEASE_WINDOW (a busy machine): it read the job again.
            assertThat(outcome).isEqualTo(RunWorker.Outcome.CANCELLED);
            assertThat(run.launchedAt()).as("never started").isNull();
            assertThat(s.strongReads()).hasSize(2);
            assertThat(s.strongReads().get(1)).isAfter(s.due().plus(RunRepository.RELEASE_WINDOW));
        }
        assertThat(s.p().jobs.get(s.job().id(), true).orElseThrow().state()).isEqualTo(JobState.PAUSED);
    }

    @Test
    void aRunClaimedAheadButLetStartLateReadsItsJobAgain() throws Exception {
        List<CompletableFuture<Instant>> pause = new CopyOnWriteArrayList<>();
        Setup s = setUp(TestStack.isolatedSettings().build(), StartFenceTest::check, x -> {
            pause.add(pauseFromElsewhere(x));
            awaitPausedInStore(x);
            // The executor held up past its instant and the window (as by a long GC pause).
            Instant late = x.due().plus(RunRepository.RELEASE_WINDOW).plusMillis(50);
            await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(late));
        });

        assertThat(s.worker().handle(Fixture.nextMessage(s.p()))).isEqualTo(RunWorker.Outcome.CANCELLED);
        Run withdrawn = Fixture.run(s.p(), s.job().id(), firstRun(s).runId());
        assertThat(withdrawn.error()).isEqualTo("job paused");
        assertThat(withdrawn.launchedAt()).isNull();
        assertThat(withdrawn.log()).as("nothing ran").isNull();
        assertThat(s.strongReads())
                .as("checked after the claim, then again at the late start")
                .hasSize(2);
        assertThat(s.strongReads().get(1)).isAfter(s.due().plus(RunRepository.RELEASE_WINDOW));
        assertThat(pause.getFirst().get(10, TimeUnit.SECONDS)).isNotNull();
    }
}
