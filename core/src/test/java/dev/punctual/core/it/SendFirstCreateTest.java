package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.RunWorker;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.infra.Metering;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.job.JobState;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * A job whose first run is due a few seconds ahead: its message goes out before the writes that create the run
 * QUEUED and then the job; a message whose run is not there (yet) is looked at again, then dropped.
 */
class SendFirstCreateTest extends WorkerTest {
    @Test
    void aOneShotDueSoonIsCreatedQueuedWithoutATransactionAndItsJobCompleted() {
        Metering.enable();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), new SettableClock(now));
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        Instant due = now.plusSeconds(30);
        double tx0 = Metering.snapshot().getOrDefault("calls:DynamoDb:TransactWriteItems", 0.0);
        double batches0 = Metering.snapshot().getOrDefault("calls:DynamoDb:BatchWriteItem", 0.0);

        JobView job = p.jobService.create(
                OWNER, JobRequest.builder("soon", binaryId, Fixture.once(due)).build());

        assertThat(Metering.snapshot().getOrDefault("calls:DynamoDb:TransactWriteItems", 0.0))
                .as("no transaction: no mark after the writes")
                .isEqualTo(tx0);
        assertThat(Metering.snapshot().getOrDefault("calls:DynamoDb:BatchWriteItem", 0.0))
                .as("the run, then the job")
                .isEqualTo(batches0 + 2);
        List<Run> runs = Fixture.runsOf(p, job.id());
        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).state()).isEqualTo(RunState.QUEUED);
        assertThat(runs.get(0).queuedAt()).isEqualTo(now);
        // No due-index entry: its message is its way to an executor (two index writes saved).
        Map<String, AttributeValue> item = Fixture.dynamo()
                .getItem(b -> b.tableName(p.resources.runs().name())
                        .key(Map.of(
                                Resources.JOB_ID,
                                AttributeValue.fromS(job.id()),
                                Resources.RUN_ID,
                                AttributeValue.fromS(runs.get(0).runId())))
                        .consistentRead(true))
                .item();
        assertThat(item).doesNotContainKeys(Resources.DUE_SHARD, Resources.DUE_SORT);
        // The answer shows the run to come; the job as stored is where dispatching leaves a one-shot: completed.
        assertThat(job.state()).isEqualTo(JobState.ACTIVE.name());
        assertThat(job.nextRunAt()).isEqualTo(due.toString());
        assertThat(p.jobService.get(OWNER, job.id()).state()).isEqualTo(JobState.COMPLETED.name());
        assertThat(Fixture.queueCounts(p).total())
                .as("its one message, delayed")
                .isEqualTo(1);
    }

    @Test
    void aRecurringJobDueSoonHasItsNextOccurrenceWrittenWithIt() {
        Instant now = Instant.parse("2030-01-01T10:00:00Z");
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), new SettableClock(now));
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));

        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder(
                                "every 5 minutes",
                                binaryId,
                                Fixture.interval(Duration.ofMinutes(5), now.plusSeconds(10)))
                        .build());

        // The second occurrence is beyond the lookahead (2 min): written SCHEDULED, for the sweeper.
        List<Run> runs = Fixture.runsOf(p, job.id());
        assertThat(runs)
                .extracting(Run::scheduledAt, Run::state)
                .containsExactly(
                        tuple(now.plusSeconds(10), RunState.QUEUED), tuple(now.plusSeconds(310), RunState.SCHEDULED));
        assertThat(job.nextRunAt()).isEqualTo(now.plusSeconds(10).toString());
        assertThat(p.jobService.get(OWNER, job.id()).state()).isEqualTo(JobState.ACTIVE.name());
        // The job item's pending run is the second; the API shows when it next fires: the first, queued.
        assertThat(p.jobs.get(job.id()).orElseThrow().nextRunAt()).isEqualTo(now.plusSeconds(310));
        assertThat(p.jobService.get(OWNER, job.id()).nextRunAt())
                .isEqualTo(now.plusSeconds(10).toString());
        assertThat(Fixture.queueCounts(p).total()).isEqualTo(1);
    }

    @Test
    void aMessageForARunNotWrittenYetIsLookedAtAgainUntilFiveMinutesPastItsDueTimeThenDropped() throws Exception {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        SettableClock clock = new SettableClock(now);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        RunWorker worker = p.worker("ex-1", tmp.resolve("ex-1"), timer);
        p.queue.sendBatch(List.of(new RunMessage("job_neverwritten0000000", "20300101T100000.000Z", now)), now);

        assertThat(worker.handle(Fixture.nextMessage(p))).isEqualTo(RunWorker.Outcome.UNKNOWN_RUN);
        clock.set(now.plus(Duration.ofMinutes(4)));
        assertThat(worker.handle(Fixture.nextMessage(p))).isEqualTo(RunWorker.Outcome.UNKNOWN_RUN);
        clock.set(now.plus(Duration.ofMinutes(5)));
        assertThat(worker.handle(Fixture.nextMessage(p))).isEqualTo(RunWorker.Outcome.ALREADY_DONE);
        assertThat(Fixture.queueCounts(p).total()).as("dropped").isZero();
    }

    /**
     * A run due now, written and sent, whose job's item is not there (as if the job's own write had not landed).
     * Its message is sent again without the hint the creation's dispatch gave it: a sweep that reads no job (its
     * write not landed) sends none.
     */
    private record WithoutItsJob(
            Punctual p, SettableClock clock, RunWorker worker, JobView job, Map<String, AttributeValue> jobItem) {}

    private WithoutItsJob runWithoutItsJob() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        SettableClock clock = new SettableClock(now);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        RunWorker worker = p.worker("ex-1", tmp.resolve("ex-1"), timer);
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        JobView job = p.jobService.create(
                OWNER, JobRequest.builder("now", binaryId, Fixture.once(now)).build());
        Map<String, AttributeValue> key = Map.of("jobId", AttributeValue.fromS(job.id()));
        Map<String, AttributeValue> item = Fixture.dynamo()
                .getItem(b -> b.tableName(p.resources.jobs().name()).key(key).consistentRead(true))
                .item();
        Fixture.dynamo().deleteItem(b -> b.tableName(p.resources.jobs().name()).key(key));
        Delivery hinted = Fixture.nextMessage(p);
        RunMessage m = RunMessage.decode(hinted.body());
        assertThat(m.hint()).isNotNull();
        p.queue.sendBatch(List.of(new RunMessage(m.jobId(), m.runId(), m.scheduledAt())), now);
        p.queue.delete(hinted.receiptHandle());
        p.queue.flushDeletes();
        return new WithoutItsJob(p, clock, worker, job, item);
    }

    @Test
    void aRunWhoseJobIsNotWrittenYetWaitsForItAndRunsOnceItIs() throws Exception {
        WithoutItsJob w = runWithoutItsJob();

        assertThat(w.worker().handle(Fixture.nextMessage(w.p()))).isEqualTo(RunWorker.Outcome.UNKNOWN_RUN);
        assertThat(Fixture.onlyRun(w.p(), w.job().id()).state()).as("untouched").isEqualTo(RunState.QUEUED);

        Fixture.dynamo().putItem(b -> b.tableName(w.p().resources.jobs().name()).item(w.jobItem()));
        assertThat(w.worker().handle(Fixture.nextMessage(w.p()))).isEqualTo(RunWorker.Outcome.SUCCEEDED);
    }

    @Test
    void aRunWhoseJobNeverComesIsWithdrawnAMinuteAfterItWasDue() throws Exception {
        WithoutItsJob w = runWithoutItsJob();

        assertThat(w.worker().handle(Fixture.nextMessage(w.p()))).isEqualTo(RunWorker.Outcome.UNKNOWN_RUN);
        w.clock().set(w.clock().instant().plusSeconds(61));
        assertThat(w.worker().handle(Fixture.nextMessage(w.p()))).isEqualTo(RunWorker.Outcome.CANCELLED);
        Run withdrawn = Fixture.onlyRun(w.p(), w.job().id());
        assertThat(withdrawn.state()).isEqualTo(RunState.CANCELLED);
        assertThat(withdrawn.attempt()).isZero();
    }

    /**
     * A first run's message carries its job's firing policy as a hint, so its executor claims without reading the
     * job first. A job replaced meanwhile by one whose runs must not overlap: the check after the claim hands the
     * attempt back, and the message, delivered again, must be claimed as the new policy says, not on the same hint
     * again (that looped until the queue dead-lettered it).
     */
    @Test
    void aFirstRunWhoseJobNoLongerMayOverlapIsHandedBackOnceThenClaimedByItsNewPolicy() throws Exception {
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), Clock.systemUTC());
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        Instant start = Instant.now().plusSeconds(4).truncatedTo(ChronoUnit.SECONDS);
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("hourly", binaryId, Fixture.interval(Duration.ofHours(1), start))
                        .build());
        p.jobService.update(
                OWNER,
                job.id(),
                "*",
                JobRequest.builder("hourly", binaryId, job.schedule())
                        .overlap("forbid")
                        .build());
        RunWorker worker = p.worker("ex-hint", tmp.resolve("ex"), timer);

        Delivery first = Fixture.nextMessage(p);
        assertThat(RunMessage.decode(first.body()).hint())
                .as("sent with its job's old policy")
                .isNotNull();
        assertThat(worker.handle(first))
                .as("claimed on the hint, checked, handed back")
                .isEqualTo(RunWorker.Outcome.RELEASED);
        assertThat(worker.handle(Fixture.nextMessage(p)))
                .as("delivered again: claimed as the job's new policy says, and run")
                .isEqualTo(RunWorker.Outcome.SUCCEEDED);
        Run ran = Fixture.runsOf(p, job.id()).stream()
                .filter(r -> r.attempt() > 0)
                .findFirst()
                .orElseThrow();
        assertThat(ran.state()).isEqualTo(RunState.SUCCEEDED);
        assertThat(ran.attempt())
                .as("the attempt handed back, then the one that ran")
                .isEqualTo(2);
    }

    /** What an executor's DynamoDB client was asked, in order: the operation and its table. */
    private static DynamoDbClient recording(List<String> calls) {
        return Fixture.dynamoWith(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                if (c.request() instanceof GetItemRequest g) {
                    calls.add("GetItem " + g.tableName());
                } else if (c.request() instanceof UpdateItemRequest u) {
                    calls.add("UpdateItem " + u.tableName());
                }
            }
        });
    }

    @Test
    void aFirstRunSentAheadIsClaimedOnItsMessagesHintBeforeItsJobIsRead() throws Exception {
        Settings settings = Fixture.realTimeSettings().build();
        Punctual p = Fixture.stack(settings, Clock.systemUTC());
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("soon", binaryId, Fixture.once(Instant.now().plusSeconds(4)))
                        .build());
        List<String> calls = new CopyOnWriteArrayList<>();
        Punctual executor = Fixture.executorSide(settings, recording(calls), Fixture.s3());

        Delivery message = Fixture.nextMessage(p);
        assertThat(RunMessage.decode(message.body()).hint())
                .isEqualTo(new RunMessage.Hint(FiringPolicy.DEFAULT_MAX_RUN_AGE));
        assertThat(executor.worker("ex-1", tmp.resolve("ex-1"), timer).handle(message))
                .isEqualTo(RunWorker.Outcome.SUCCEEDED);

        String jobs = p.resources.jobs().name();
        String runs = p.resources.runs().name();
        // The claim (the run's UpdateItem) comes first; the job is read only after it, strongly (its check).
        assertThat(calls.getFirst()).isEqualTo("UpdateItem " + runs);
        assertThat(calls.indexOf("GetItem " + jobs)).isPositive();
        assertThat(Fixture.onlyRun(p, job.id()).attempt()).isEqualTo(1);
    }

    @Test
    void aRunClaimedOnItsHintBeforeItsJobIsWrittenIsHandedBackAndRunsOnceItIs() throws Exception {
        Settings settings = Fixture.realTimeSettings().build();
        Punctual p = Fixture.stack(settings, Clock.systemUTC());
        RunWorker worker = p.worker("ex-1", tmp.resolve("ex-1"), timer);
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("soon", binaryId, Fixture.once(Instant.now().plusSeconds(4)))
                        .build());
        Map<String, AttributeValue> key = Map.of("jobId", AttributeValue.fromS(job.id()));
        Map<String, AttributeValue> item = Fixture.dynamo()
                .getItem(b -> b.tableName(p.resources.jobs().name()).key(key).consistentRead(true))
                .item();
        Fixture.dynamo().deleteItem(b -> b.tableName(p.resources.jobs().name()).key(key));

        assertThat(worker.handle(Fixture.nextMessage(p))).isEqualTo(RunWorker.Outcome.RELEASED);
        Run handedBack = Fixture.onlyRun(p, job.id());
        assertThat(handedBack.state()).isEqualTo(RunState.FAILED);
        assertThat(handedBack.maxAttempts() - handedBack.attempt())
                .as("no attempt used up")
                .isEqualTo(job.maxAttempts());

        Fixture.dynamo().putItem(b -> b.tableName(p.resources.jobs().name()).item(item));
        assertThat(worker.handle(Fixture.nextMessage(p))).isEqualTo(RunWorker.Outcome.SUCCEEDED);
    }
}
