package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.BinaryView;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.Page;
import dev.punctual.core.service.RunListing;
import dev.punctual.core.service.RunView;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JobService on the real repositories: validation writes nothing; listings paginate and order as documented. */
class JobServiceTest extends ClockedStackTest {
    private ScheduleSpec tomorrow() {
        return Fixture.once(clock.instant().plus(Duration.ofDays(1)));
    }

    private JobRequest request(String binary, Map<String, String> env, Integer timeout, Integer maxAttempts) {
        return JobRequest.builder("a job", binary, tomorrow())
                .args(List.of("x"))
                .env(env)
                .timeoutSeconds(timeout)
                .maxAttempts(maxAttempts)
                .build();
    }

    /** Creating {@code req} fails with 422 naming exactly {@code fields}, and nothing was written anywhere. */
    private ValidationException rejected(JobRequest req, String... fields) {
        ValidationException e = catchThrowableOfType(ValidationException.class, () -> p.jobService.create(OWNER, req));
        assertThat(e).as("expected a ValidationException").isNotNull();
        assertThat(e.kind()).isEqualTo(Rejection.INVALID);
        assertThat(e.errors()).extracting(FieldError::field).containsExactlyInAnyOrder(fields);
        assertThat(p.jobService.list(OWNER, null, null).items()).isEmpty();
        assertThat(Fixture.countItems(p, p.resources.jobs().name())).isZero();
        assertThat(Fixture.countItems(p, p.resources.runs().name())).isZero();
        assertThat(Fixture.queueCounts(p).total()).isZero();
        return e;
    }

    @Test
    void anUnknownBinaryIdIsRejected() {
        rejected(request("bin_aaaaaaaaaaaaaaaaaaaa", null, null, null), "binaryId");
    }

    @Test
    void anotherOwnersBinaryIsAsUnknownAsAMissingOne() {
        String theirs = Fixture.uploadBinary(p, "someone-else", Fixture.script("echo theirs"));
        ValidationException e = rejected(request(theirs, null, null, null), "binaryId");
        assertThat(e.errors().get(0).message()).isEqualTo("no binary with this id");
    }

    @Test
    void aBinaryRegisteredButNotUploadedIsRejected() {
        BinaryView registered = Fixture.register(p, OWNER, Fixture.script("echo never uploaded"));

        ValidationException e = rejected(request(registered.id(), null, null, null), "binaryId");

        assertThat(e.errors().get(0).message()).contains("not uploaded");
    }

    @Test
    void reservedEnvironmentNamesAreRejectedEachByName() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("AWS_X", "1");
        env.put("LD_PRELOAD", "/tmp/evil.so");
        env.put("SCHEDULER_Y", "2");
        env.put("aws_secret_access_key", "3");
        env.put("FINE", "ok");

        ValidationException e = rejected(
                request(binaryId, env, null, null),
                "env.AWS_X",
                "env.LD_PRELOAD",
                "env.SCHEDULER_Y",
                "env.aws_secret_access_key");

        assertThat(e.errors()).allSatisfy(f -> assertThat(f.message()).contains("reserved"));
    }

    @Test
    void aZeroTimeoutIsRejected() {
        rejected(request(binaryId, null, 0, null), "timeoutSeconds");
    }

    @Test
    void elevenAttemptsAreRejected() {
        ValidationException e = rejected(request(binaryId, null, null, 11), "maxAttempts");
        assertThat(e.errors().get(0).message()).contains("between 1 and 10");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        JobRequest req = JobRequest.builder(" ", null, ScheduleSpec.interval("PT1S", null, null))
                .env(Map.of("LD_LIBRARY_PATH", "/x"))
                .timeoutSeconds(0)
                .maxAttempts(0)
                .build();

        rejected(req, "name", "binaryId", "env.LD_LIBRARY_PATH", "timeoutSeconds", "maxAttempts", "schedule.every");
    }

    @Test
    void aValidRequestCreatesTheJobWithItsPendingRun() {
        JobView job = p.jobService.create(OWNER, request(binaryId, Map.of("FINE", "ok"), 30, 2));

        assertThat(job.state()).isEqualTo("ACTIVE");
        assertThat(job.timeoutSeconds()).isEqualTo(30);
        assertThat(job.maxAttempts()).isEqualTo(2);
        assertThat(job.nextRunAt())
                .isEqualTo(clock.instant().plus(Duration.ofDays(1)).toString());
        assertThat(p.jobService
                        .runs(OWNER, job.id(), null, null, RunListing.ALL)
                        .items())
                .singleElement()
                .satisfies(r -> assertThat(r.state()).isEqualTo(RunState.SCHEDULED.name()));
        // Beyond the lookahead: nothing sent yet.
        assertThat(Fixture.queueCounts(p).total()).isZero();
        assertThat(catchThrowableOfType(NotFoundException.class, () -> p.jobService.get("someone-else", job.id())))
                .isNotNull();
    }

    @Test
    void nextRunAtIsTheNextFireTimeNotTheFirstOccurrenceNotYetQueued() {
        Instant start = clock.instant();
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("every 10 s", binaryId, Fixture.interval(Duration.ofSeconds(10), start))
                        .build());
        clock.advance(Duration.ofSeconds(3));
        // The sweeper queues the occurrences of its lookahead (minutes): the job's pending run moves far out.
        p.sweeper.sweep();
        var stored = p.jobs.get(job.id()).orElseThrow();
        assertThat(stored.nextRunAt()).isAfter(start.plus(Duration.ofMinutes(1)));

        assertThat(p.jobService.get(OWNER, job.id()).nextRunAt())
                .isEqualTo(start.plusSeconds(10).toString());
        clock.advance(Duration.ofSeconds(10));
        assertThat(p.jobService.list(OWNER, null, null).items())
                .singleElement()
                .satisfies(j -> assertThat(j.nextRunAt())
                        .isEqualTo(start.plusSeconds(20).toString()));
        // Paused: it does not fire.
        assertThat(p.lifecycle.pause(OWNER, job.id()).nextRunAt()).isNull();
    }

    @Test
    void aPausedJobsRunsThatHaveNotStartedShowPausedAtOnceAndTheirOwnStateAgainOnResume() {
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("every 10 s", binaryId, Fixture.interval(Duration.ofSeconds(10), clock.instant()))
                        .build());
        p.sweeper.sweep();
        RunListing queued = new RunListing("QUEUED", null, null, "true");
        RunListing paused = new RunListing("PAUSED", null, null, "true");
        List<String> queuedIds = p.jobService.runs(OWNER, job.id(), 100, null, queued).items().stream()
                .map(RunView::runId)
                .toList();
        assertThat(queuedIds).hasSizeGreaterThan(2);

        p.lifecycle.pause(OWNER, job.id());
        assertThat(p.jobService.runs(OWNER, job.id(), 100, null, queued).items())
                .isEmpty();
        assertThat(p.jobService.runs(OWNER, job.id(), 100, null, paused).items())
                .extracting(RunView::runId)
                .containsExactlyInAnyOrderElementsOf(queuedIds);
        assertThat(p.jobService.run(OWNER, job.id(), queuedIds.getFirst()).state())
                .isEqualTo("PAUSED");

        p.lifecycle.resume(OWNER, job.id(), null);
        assertThat(p.jobService.run(OWNER, job.id(), queuedIds.getFirst()).state())
                .isEqualTo("QUEUED");
        assertThat(p.jobService.runs(OWNER, job.id(), 100, null, paused).items())
                .isEmpty();
    }

    @Test
    void listingJobsPaginatesOldestFirstAcrossThreePagesAndSeesOnlyTheOwnersJobs() {
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            created.add(p.jobService
                    .create(OWNER, request(binaryId, null, null, null))
                    .id());
            clock.advance(Duration.ofSeconds(1));
        }
        String theirBinary = Fixture.uploadBinary(p, "someone-else", Fixture.script("echo theirs"));
        p.jobService.create("someone-else", request(theirBinary, null, null, null));

        Page<JobView> first = p.jobService.list(OWNER, 3, null);
        Page<JobView> second = p.jobService.list(OWNER, 3, first.nextCursor());
        Page<JobView> third = p.jobService.list(OWNER, 3, second.nextCursor());

        assertThat(first.items()).hasSize(3);
        assertThat(second.items()).hasSize(3);
        assertThat(third.items()).hasSize(1);
        assertThat(first.nextCursor()).isNotNull();
        assertThat(second.nextCursor()).isNotNull();
        assertThat(third.nextCursor()).isNull();
        List<String> all = new ArrayList<>();
        for (Page<JobView> page : List.of(first, second, third)) {
            page.items().forEach(j -> all.add(j.id()));
        }
        assertThat(all).containsExactlyElementsOf(created);
    }

    @Test
    void aCursorThatWasNotIssuedIsRejectedWith400() {
        ValidationException e =
                catchThrowableOfType(ValidationException.class, () -> p.jobService.list(OWNER, 3, "bm90LWEtY3Vyc29y"));
        assertThat(e.kind()).isEqualTo(Rejection.MALFORMED);
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("cursor");
    }

    @Test
    void runsAreListedNewestFirstAcrossPages() {
        // Every 10 s: creation dispatches every occurrence within the two-minute lookahead and leaves one pending.
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("every ten", binaryId, ScheduleSpec.interval("PT10S", null, null))
                        .build());

        List<RunView> all = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            Page<RunView> page = p.jobService.runs(OWNER, job.id(), 5, cursor, RunListing.ALL);
            assertThat(page.items().size()).isLessThanOrEqualTo(5);
            all.addAll(page.items());
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null);

        assertThat(all).hasSize(14);
        assertThat(pages).isEqualTo(3);
        assertThat(all)
                .extracting(RunView::runId)
                .doesNotHaveDuplicates()
                .isSortedAccordingTo(Comparator.reverseOrder());
        assertThat(all).extracting(r -> Instant.parse(r.scheduledAt())).isSortedAccordingTo(Comparator.reverseOrder());
        assertThat(all.get(0).state()).isEqualTo(RunState.SCHEDULED.name());
        assertThat(all.subList(1, all.size()))
                .allSatisfy(r -> assertThat(r.state()).isEqualTo("QUEUED"));
        assertThat(job.nextRunAt()).isNotNull();
    }
}
