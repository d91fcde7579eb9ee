package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.service.Created;
import dev.punctual.core.service.IdempotentCreation;
import dev.punctual.core.service.JobBatch;
import dev.punctual.core.service.JobListing;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.RunListing;
import dev.punctual.core.tenant.IdempotencyRepository;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Creates under an Idempotency-Key, on the real tables: one job per key and body, whatever the retries. */
class IdempotentCreateTest extends ClockedStackTest {
    private JobRequest request(String name, Map<String, String> env) {
        return JobRequest.builder(name, binaryId, Fixture.interval(Duration.ofHours(1), clock.instant()))
                .env(env)
                .build();
    }

    private List<JobView> jobs(String owner) {
        return p.jobService.list(owner, null, null, JobListing.ALL).items();
    }

    @Test
    void theSameKeyAndBodyTwiceCreateOneJobAndTheRepeatSaysSo() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("A", "1");
        env.put("B", "2");
        Created<JobView> first = p.jobService.create(OWNER, request("nightly", env), "key-1");
        // The same body, its map in another order: the same request.
        Map<String, String> reordered = new LinkedHashMap<>();
        reordered.put("B", "2");
        reordered.put("A", "1");
        Created<JobView> again = p.jobService.create(OWNER, request("nightly", reordered), "key-1");

        assertThat(first.replayed()).isFalse();
        assertThat(again.replayed()).isTrue();
        assertThat(again.value().id()).isEqualTo(first.value().id());
        assertThat(jobs(OWNER))
                .extracting(JobView::id)
                .containsExactly(first.value().id());
        // The runs of one creation: the first occurrence, sent at once, and the next one.
        assertThat(p.jobService
                        .runs(OWNER, first.value().id(), null, null, RunListing.ALL)
                        .items())
                .extracting(r -> Instant.parse(r.scheduledAt()))
                .containsExactlyInAnyOrder(clock.instant(), clock.instant().plus(Duration.ofHours(1)));
    }

    @Test
    void theSameKeyWithAnotherBodyIsA422AndCreatesNothing() {
        p.jobService.create(OWNER, request("nightly", null), "key-1");
        ValidationException e = catchThrowableOfType(
                ValidationException.class, () -> p.jobService.create(OWNER, request("hourly", null), "key-1"));
        assertThat(e.kind()).isEqualTo(Rejection.INVALID);
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("Idempotency-Key");
        assertThat(jobs(OWNER)).extracting(JobView::name).containsExactly("nightly");
    }

    @Test
    void keysAreTheTenantsOwnAndExpireAfterADay() {
        String theirBinary = Fixture.uploadBinary(p, "someone-else", Fixture.script("echo theirs"));
        JobView mine =
                p.jobService.create(OWNER, request("nightly", null), "shared").value();
        JobView theirs = p.jobService
                .create(
                        "someone-else",
                        JobRequest.builder(
                                        "nightly", theirBinary, Fixture.interval(Duration.ofHours(1), clock.instant()))
                                .build(),
                        "shared")
                .value();
        assertThat(theirs.id()).isNotEqualTo(mine.id());
        assertThat(theirs.owner()).isEqualTo("someone-else");

        clock.advance(IdempotentCreation.KEPT.plusSeconds(1));
        Created<JobView> later = p.jobService.create(OWNER, request("nightly", null), "shared");
        assertThat(later.replayed()).isFalse();
        assertThat(later.value().id()).isNotEqualTo(mine.id());
    }

    @Test
    void aFailedRequestGivesItsKeyBackForTheCorrectedOne() {
        JobRequest bad = JobRequest.builder("nightly", binaryId, Fixture.interval(Duration.ofHours(1), clock.instant()))
                .timeoutSeconds(0)
                .build();
        ValidationException e =
                catchThrowableOfType(ValidationException.class, () -> p.jobService.create(OWNER, bad, "key-1"));
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("timeoutSeconds");

        Created<JobView> fixed = p.jobService.create(OWNER, request("nightly", null), "key-1");
        assertThat(fixed.replayed()).isFalse();
        assertThat(jobs(OWNER)).hasSize(1);
    }

    @Test
    void aFirstRequestStillAtWorkIsA409AndOneThatDiedIsFinishedUnderItsIds() {
        JobRequest req = request("nightly", null);
        IdempotencyRepository keys = new IdempotencyRepository(Fixture.dynamo(), p.resources);
        String jobId = "job_aaaaaaaaaaaaaaaaaaaa";
        // A first request claimed the key and died before writing its job.
        keys.claim(
                OWNER,
                "key-1",
                new IdempotencyRepository.Claim(
                        IdempotentCreation.digest(req),
                        List.of(jobId),
                        clock.instant().plus(IdempotentCreation.LEASE),
                        clock.instant().plus(IdempotentCreation.KEPT)),
                clock.instant());

        ValidationException busy =
                catchThrowableOfType(ValidationException.class, () -> p.jobService.create(OWNER, req, "key-1"));
        assertThat(busy.kind()).isEqualTo(Rejection.CONFLICT);
        assertThat(busy.errors()).extracting(FieldError::field).containsExactly("Idempotency-Key");
        assertThat(jobs(OWNER)).isEmpty();

        clock.advance(IdempotentCreation.LEASE.plusSeconds(1));
        Created<JobView> done = p.jobService.create(OWNER, req, "key-1");
        assertThat(done.replayed()).isFalse();
        assertThat(done.value().id()).isEqualTo(jobId);
        assertThat(p.jobService.create(OWNER, req, "key-1").replayed()).isTrue();
        assertThat(jobs(OWNER)).extracting(JobView::id).containsExactly(jobId);
    }

    @Test
    void concurrentRepeatsCreateOneJob() throws Exception {
        JobRequest req = request("nightly", null);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Object>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                Callable<Object> call = () -> {
                    try {
                        return p.jobService.create(OWNER, req, "key-1").value().id();
                    } catch (ValidationException e) {
                        return e.kind();
                    }
                };
                answers.add(pool.submit(call));
            }
            List<Object> got = new ArrayList<>();
            for (Future<Object> f : answers) {
                got.add(f.get());
            }
            // Each answer is the one job, or a 409 while the first was still at work.
            String id = jobs(OWNER).getFirst().id();
            assertThat(got).allSatisfy(a -> assertThat(a).isIn(id, Rejection.CONFLICT));
            assertThat(got).contains(id);
        } finally {
            pool.shutdownNow();
        }
        assertThat(jobs(OWNER)).hasSize(1);
    }

    @Test
    void aBatchIsIdempotentAsAWhole() {
        JobBatch.Request batch = new JobBatch.Request(List.of(request("a", null), request("b", null)));
        Created<JobBatch> first = p.jobService.createAll(OWNER, batch, "batch-1");
        Created<JobBatch> again = p.jobService.createAll(OWNER, batch, "batch-1");
        assertThat(again.replayed()).isTrue();
        assertThat(again.value().jobs())
                .extracting(JobView::id)
                .containsExactlyElementsOf(
                        first.value().jobs().stream().map(JobView::id).toList());
        assertThat(jobs(OWNER)).hasSize(2);
    }

    @Test
    void aKeyThatIsNotVisibleAsciiIsA400() {
        ValidationException e = catchThrowableOfType(
                ValidationException.class, () -> p.jobService.create(OWNER, request("a", null), "has space"));
        assertThat(e.kind()).isEqualTo(Rejection.MALFORMED);
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("Idempotency-Key");
        assertThat(jobs(OWNER)).isEmpty();
    }
}
