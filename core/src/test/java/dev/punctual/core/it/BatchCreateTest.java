package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.core.Punctual;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.QuotaExceededException;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.Metering;
import dev.punctual.core.job.JobState;
import dev.punctual.core.limits.Quotas;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobBatch;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.tenant.UsageRepository;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;

/**
 * Jobs created many at a time ({@code POST /v1/jobs/batch}) on DynamoDB Local and ElasticMQ: all or none, the
 * quotas counted for the batch, each job's writes without a transaction, and a failed write undone.
 */
class BatchCreateTest {
    private final Instant now = Instant.parse("2030-01-01T10:00:00Z");

    private static JobRequest once(String name, String binaryId, Instant at) {
        return JobRequest.builder(name, binaryId, Fixture.once(at)).build();
    }

    private static List<JobRequest> onceEach(int n, String binaryId, Instant at) {
        return IntStream.range(0, n)
                .mapToObj(i -> once("job-" + i, binaryId, at))
                .toList();
    }

    private List<JobView> allJobs(Punctual p) {
        return p.jobService.list(OWNER, 100, null).items();
    }

    @Test
    void aBatchOfOneShotsDueSoonIsCreatedQueuedWithoutATransaction() {
        Metering.enable();
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), new SettableClock(now));
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        Instant due = now.plusSeconds(30);
        double tx0 = Metering.snapshot().getOrDefault("calls:DynamoDb:TransactWriteItems", 0.0);
        double batches0 = Metering.snapshot().getOrDefault("calls:DynamoDb:BatchWriteItem", 0.0);
        double sends0 = Metering.snapshot().getOrDefault("calls:Sqs:SendMessageBatch", 0.0);

        JobBatch made = p.jobService.createAll(OWNER, new JobBatch.Request(onceEach(30, binaryId, due)));

        assertThat(made.jobs())
                .extracting(JobView::name)
                .containsExactlyElementsOf(
                        IntStream.range(0, 30).mapToObj(i -> "job-" + i).toList());
        assertThat(made.jobs()).allSatisfy(j -> {
            assertThat(j.state()).isEqualTo(JobState.ACTIVE.name());
            assertThat(j.nextRunAt()).isEqualTo(due.toString());
        });
        for (JobView j : made.jobs()) {
            List<Run> runs = Fixture.runsOf(p, j.id());
            assertThat(runs)
                    .singleElement()
                    .satisfies(r -> assertThat(r.state()).isEqualTo(RunState.QUEUED));
            assertThat(p.jobService.get(OWNER, j.id()).state()).isEqualTo(JobState.COMPLETED.name());
        }
        assertThat(Fixture.queueCounts(p).total()).as("one message per run").isEqualTo(30);
        assertThat(p.usage.get(OWNER).jobs()).isEqualTo(30);
        var m = Metering.snapshot();
        assertThat(m.getOrDefault("calls:DynamoDb:TransactWriteItems", 0.0)).isEqualTo(tx0);
        assertThat(m.getOrDefault("calls:DynamoDb:BatchWriteItem", 0.0) - batches0)
                .as("30 runs in 2 calls of at most 25, then 30 jobs in 2")
                .isEqualTo(4);
        assertThat(m.getOrDefault("calls:Sqs:SendMessageBatch", 0.0) - sends0)
                .as("ten messages a call")
                .isEqualTo(3);
    }

    @Test
    void aRecurringJobInABatchHasItsNextOccurrenceWritten() {
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), new SettableClock(now));
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        // Every 5 minutes: the second occurrence is past the lookahead, so nothing sends it yet.
        JobRequest everyFive = JobRequest.builder(
                        "every", binaryId, Fixture.interval(Duration.ofMinutes(5), now.plusSeconds(10)))
                .build();

        JobView job = p.jobService
                .createAll(OWNER, new JobBatch.Request(List.of(everyFive)))
                .jobs()
                .getFirst();

        assertThat(Fixture.runsOf(p, job.id()))
                .extracting(Run::scheduledAt, Run::state)
                .containsExactlyInAnyOrder(
                        org.assertj.core.api.Assertions.tuple(now.plusSeconds(10), RunState.QUEUED),
                        org.assertj.core.api.Assertions.tuple(now.plusSeconds(310), RunState.SCHEDULED));
        // The job item's pending run is the second; the API shows when it next fires: the first, queued.
        assertThat(p.jobs.get(job.id()).orElseThrow().nextRunAt()).isEqualTo(now.plusSeconds(310));
        assertThat(p.jobService.get(OWNER, job.id()).nextRunAt())
                .isEqualTo(now.plusSeconds(10).toString());
    }

    @Test
    void oneInvalidJobRejectsTheBatchNamingItsFieldsAndWritesNothing() {
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), new SettableClock(now));
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        List<JobRequest> jobs = new ArrayList<>(onceEach(5, binaryId, now.plusSeconds(30)));
        jobs.set(
                3,
                JobRequest.builder("bad", binaryId, Fixture.once(now.plusSeconds(30)))
                        .maxAttempts(0)
                        .timeoutSeconds(0)
                        .build());

        assertThatThrownBy(() -> p.jobService.createAll(OWNER, new JobBatch.Request(jobs)))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactlyInAnyOrder("jobs[3].maxAttempts", "jobs[3].timeoutSeconds"));
        assertThat(allJobs(p)).isEmpty();
        assertThat(p.usage.get(OWNER)).isEqualTo(new UsageRepository.Usage(0, 0));
        assertThat(Fixture.queueCounts(p).total()).isZero();

        assertThatThrownBy(() -> p.jobService.createAll(OWNER, new JobBatch.Request(List.of())))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactly("jobs"));
        assertThatThrownBy(() -> p.jobService.createAll(
                        OWNER, new JobBatch.Request(onceEach(JobBatch.MAX_JOBS + 1, binaryId, now.plusSeconds(30)))))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .singleElement()
                                .satisfies(f -> assertThat(f.message()).contains("at most " + JobBatch.MAX_JOBS)));
    }

    @Test
    void aBatchPastTheJobQuotaIsRefusedWhole() {
        Punctual p = Fixture.stack(
                TestStack.isolatedSettings().quotas(new Quotas(5, 1000, 10, 10)).build(), new SettableClock(now));
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        p.jobService.createAll(OWNER, new JobBatch.Request(onceEach(2, binaryId, now.plusSeconds(30))));

        assertThatThrownBy(() ->
                        p.jobService.createAll(OWNER, new JobBatch.Request(onceEach(4, binaryId, now.plusSeconds(30)))))
                .isInstanceOfSatisfying(QuotaExceededException.class, e -> {
                    assertThat(e.quota()).isEqualTo("jobs");
                    assertThat(e.getMessage()).contains("has 2 jobs and this request adds 4, its quota is 5");
                });
        assertThat(allJobs(p)).hasSize(2);
        assertThat(p.usage.get(OWNER).jobs()).isEqualTo(2);
        assertThat(Fixture.queueCounts(p).total()).as("only the first batch's").isEqualTo(2);
    }

    @Test
    void aBatchWhoseJobsCannotBeWrittenIsUndoneAndItsQuotaGivenBack() {
        var settings = TestStack.isolatedSettings().build();
        Punctual ok = Fixture.stack(settings, new SettableClock(now));
        String binaryId = Fixture.uploadBinary(ok, OWNER, Fixture.script("true"));
        String jobsTable = ok.resources.jobs().name();
        var t = TestStack.target();
        // The same scheduler, whose writes of new jobs fail (as if DynamoDB became unreachable right then).
        Punctual failing = new Punctual(
                Fixture.dynamoFailingWhen(r -> r instanceof BatchWriteItemRequest b
                        && b.requestItems().containsKey(jobsTable)
                        && b.requestItems().get(jobsTable).getFirst().putRequest() != null),
                AwsClients.sqs(t),
                AwsClients.s3(t),
                AwsClients.presigner(t),
                settings,
                new SettableClock(now));
        List<JobRequest> jobs = new ArrayList<>(onceEach(3, binaryId, now.plusSeconds(30)));
        jobs.add(JobRequest.builder("later", binaryId, Fixture.once(now.plus(Duration.ofHours(1))))
                .build());

        assertThatThrownBy(() -> failing.jobService.createAll(OWNER, new JobBatch.Request(jobs)))
                .hasMessageContaining("injected");

        assertThat(Fixture.dynamo()
                        .scan(b -> b.tableName(ok.resources.runs().name()))
                        .items())
                .as("no run left behind")
                .isEmpty();
        assertThat(Fixture.dynamo().scan(b -> b.tableName(jobsTable)).items())
                .as("no job, no secrets: only the tenant's usage, given back")
                .singleElement()
                .satisfies(item -> assertThat(item.get("jobId").s()).startsWith("tenant#"));
        assertThat(ok.usage.get(OWNER)).isEqualTo(new UsageRepository.Usage(0, 0));
        // The three messages sent ahead name runs that are gone: executors drop them (SendFirstCreateTest).
        assertThat(Fixture.queueCounts(ok).total()).isEqualTo(3);
    }
}
