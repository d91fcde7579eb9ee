package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.core.Punctual;
import dev.punctual.core.error.ConflictException;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Jitter;
import dev.punctual.core.firing.JitterSpec;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.BackfillRequest;
import dev.punctual.core.service.BackfillView;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import dev.punctual.core.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** {@code PUT /v1/jobs/{id}} (optimistic concurrency, atomic replacement of the pending run) and backfill. */
class UpdateAndBackfillTest {

    private record Stack(Punctual p, SettableClock clock, String binaryId) {
        /** A request for a job every {@code every} from {@code start}. */
        JobRequest request(Duration every, Instant start) {
            return JobRequest.builder("job", binaryId, Fixture.interval(every, start))
                    .build();
        }

        JobView create(Duration every, Instant start) {
            return p.jobService.create(OWNER, request(every, start));
        }

        /** A backfill of the job from {@code from} (null: absent) to {@code to}. */
        BackfillView backfill(String jobId, Instant from, Instant to) {
            return p.backfills.backfill(
                    OWNER, jobId, new BackfillRequest(from == null ? null : from.toString(), to.toString()));
        }

        List<Run> scheduled(String jobId) {
            return Fixture.runsOf(p, jobId).stream()
                    .filter(r -> r.state() == RunState.SCHEDULED)
                    .toList();
        }
    }

    private static Stack stack(Instant now) {
        SettableClock clock = new SettableClock(now);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        return new Stack(p, clock, Fixture.uploadBinary(p, OWNER, Fixture.script("true")));
    }

    private static Instant realNow() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS);
    }

    @Test
    void updateReplacesThePendingRunWithTheNewSchedulesFirstOccurrenceAtomically() {
        Instant now = realNow();
        Stack s = stack(now);
        JobView v1 = s.create(Duration.ofHours(1), now.plus(Duration.ofHours(1)));

        JobView v2 = s.p().jobService
                .update(OWNER, v1.id(), "\"1\"", s.request(Duration.ofHours(2), now.plus(Duration.ofHours(3))));

        assertThat(v2.version()).isEqualTo(2);
        assertThat(v2.etag()).isEqualTo("\"2\"");
        assertThat(v2.schedule().every()).isEqualTo("PT2H");
        assertThat(v2.nextRunAt()).isEqualTo(now.plus(Duration.ofHours(3)).toString());
        Run old = Fixture.run(s.p(), v1.id(), RunIds.forOccurrence(now.plus(Duration.ofHours(1))));
        assertThat(old.state()).isEqualTo(RunState.CANCELLED);
        assertThat(old.error()).isEqualTo("replaced by version 2 of the job");
        assertThat(s.scheduled(v1.id()))
                .extracting(Run::runId)
                .containsExactly(RunIds.forOccurrence(now.plus(Duration.ofHours(3))));
        assertThat(s.p().jobs.get(v1.id()).orElseThrow().pendingRunId())
                .isEqualTo(RunIds.forOccurrence(now.plus(Duration.ofHours(3))));
    }

    @Test
    void reApplyingAnIntervalThatNamesNoStartKeepsItsStartAndChangesNothing() {
        Instant now = realNow();
        Stack s = stack(now);
        JobRequest noStart = JobRequest.builder("job", s.binaryId(), ScheduleSpec.interval("PT1H", null, null))
                .build();
        JobView v1 = s.p().jobService.create(OWNER, noStart);
        assertThat(v1.schedule().start())
                .as("a start left out is the creation's")
                .isEqualTo(now.toString());
        // The same file applied again, seconds later (found by CliIT: a dry run across a second boundary showed a
        // change of start).
        String pending = s.p().jobs.get(v1.id()).orElseThrow().pendingRunId();
        s.clock().set(now.plusSeconds(5).plusMillis(300));

        assertThat(s.p().jobService
                        .previewUpdate(OWNER, v1.id(), "\"1\"", noStart)
                        .schedule())
                .as("a dry run's")
                .isEqualTo(v1.schedule());
        JobView again = s.p().jobService.update(OWNER, v1.id(), "\"1\"", noStart);

        assertThat(again.version()).as("no new version").isEqualTo(1);
        assertThat(again.schedule().start()).isEqualTo(now.toString());
        assertThat(s.p().jobs.get(v1.id()).orElseThrow().pendingRunId())
                .as("its pending run untouched")
                .isEqualTo(pending);
    }

    @Test
    void anUpdateToTheDefinitionTheJobHasChangesNothing() {
        Instant now = realNow();
        Stack s = stack(now);
        JobView v1 = s.create(Duration.ofHours(1), now.plus(Duration.ofHours(1)));
        JobRequest same = s.request(Duration.ofHours(1), now.plus(Duration.ofHours(1)));

        JobView again = s.p().jobService.update(OWNER, v1.id(), "\"1\"", same);

        assertThat(again.version()).as("no new version").isEqualTo(1);
        assertThat(again.updatedAt()).isEqualTo(v1.updatedAt());
        assertThat(Fixture.runsOf(s.p(), v1.id()))
                .as("the pending run untouched, not cancelled and made again")
                .singleElement()
                .satisfies(r -> assertThat(r.state()).isEqualTo(RunState.SCHEDULED));
        // One field changed is a new version, as before.
        JobView v2 = s.p().jobService
                .update(OWNER, v1.id(), "\"1\"", s.request(Duration.ofHours(2), now.plus(Duration.ofHours(1))));
        assertThat(v2.version()).isEqualTo(2);
    }

    @Test
    void anUpdateKeepingTheNextOccurrenceMovesThatRunInsteadOfDuplicatingIt() {
        Instant now = realNow();
        Stack s = stack(now);
        Instant first = now.plus(Duration.ofHours(1));
        JobView v1 = s.create(Duration.ofHours(1), first);
        JobRequest withJitter = JobRequest.builder("job", s.binaryId(), Fixture.interval(Duration.ofHours(1), first))
                .maxAttempts(5)
                .jitter(new JitterSpec("hashed", "PT10M"))
                .build();

        JobView v2 = s.p().jobService.update(OWNER, v1.id(), "W/\"1\"", withJitter);

        Instant due = new Jitter(Jitter.Mode.HASHED, Duration.ofMinutes(10))
                .apply(v1.id(), first, RandomGenerator.getDefault());
        assertThat(v2.jitter()).isEqualTo(new JitterSpec("hashed", "PT10M"));
        assertThat(v2.nextRunAt()).isEqualTo(due.toString());
        List<Run> runs = Fixture.runsOf(s.p(), v1.id());
        assertThat(runs).hasSize(1);
        assertThat(runs.getFirst().runId()).isEqualTo(RunIds.forOccurrence(first));
        assertThat(runs.getFirst().occurrence()).isEqualTo(first);
        assertThat(runs.getFirst().scheduledAt()).isEqualTo(due).isBetween(first, first.plus(Duration.ofMinutes(10)));
        assertThat(runs.getFirst().maxAttempts()).isEqualTo(5);
    }

    @Test
    void aStaleOrMissingIfMatchOrAnInvalidBodyChangesNothing() {
        Instant now = realNow();
        Stack s = stack(now);
        JobView v1 = s.create(Duration.ofHours(1), now.plus(Duration.ofHours(1)));
        JobRequest other = s.request(Duration.ofHours(2), now.plus(Duration.ofHours(2)));
        s.p().jobService.update(OWNER, v1.id(), "1", other);
        Job before = s.p().jobs.get(v1.id()).orElseThrow();

        assertThatThrownBy(() -> s.p().jobService.update(OWNER, v1.id(), "\"1\"", other))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Rejection.PRECONDITION_FAILED);
                    assertThat(e.errors()).extracting(FieldError::field).containsExactly("If-Match");
                })
                .hasMessageContaining("is at version 2, not 1");
        assertThatThrownBy(() -> s.p().jobService.update(OWNER, v1.id(), null, other))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Rejection.PRECONDITION_REQUIRED);
                    assertThat(e.errors()).extracting(FieldError::field).containsExactly("If-Match");
                });
        assertThatThrownBy(() -> s.p().jobService
                        .update(
                                OWNER,
                                v1.id(),
                                "\"2\"",
                                JobRequest.builder("job", s.binaryId(), other.schedule())
                                        .overlap("sometimes")
                                        .maxRunAge("PT1S")
                                        .build()))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactly("overlap", "maxRunAge"));

        assertThat(s.p().jobs.get(v1.id()).orElseThrow()).isEqualTo(before);
    }

    @Test
    void aPausedJobStaysPausedWithoutAPendingRun() {
        Instant now = realNow();
        Stack s = stack(now);
        JobView v1 = s.create(Duration.ofHours(1), now.plus(Duration.ofHours(1)));
        JobView paused = s.p().lifecycle.pause(OWNER, v1.id());

        JobView updated = s.p().jobService
                .update(OWNER, v1.id(), paused.etag(), s.request(Duration.ofHours(2), now.plus(Duration.ofHours(2))));

        assertThat(updated.state()).isEqualTo("PAUSED");
        assertThat(updated.version()).isEqualTo(paused.version() + 1);
        assertThat(s.scheduled(v1.id())).isEmpty();
        assertThat(s.p().jobs.get(v1.id()).orElseThrow().pendingRunId()).isNull();
    }

    /**
     * The pending run comes due within the lookahead while an update replaces it: whichever wins (the sweep, or
     * in odd rounds a bare dispatch of that run, which gets there sooner, sends it; or the update cancels it), the job ends with exactly one pending run, the first occurrence of the new
     * schedule, and no run of the old schedule is left SCHEDULED.
     */
    @Test
    void anUpdateRacingWithASweepLeavesExactlyOnePendingRun() throws Exception {
        Instant now = realNow();
        Stack s = stack(now);
        assertThat(s.p().watermarks.advance(TimeBuckets.bucketOf(now), now)).isTrue();
        int sweepWon = 0;
        for (int i = 0; i < 12; i++) {
            Instant t = s.clock().instant();
            Instant first = t.plus(Duration.ofMinutes(3));
            JobView v1 = s.create(Duration.ofMinutes(10), first);
            s.clock().set(t.plus(Duration.ofMinutes(2)));
            CyclicBarrier go = new CyclicBarrier(2);
            boolean bare = i % 2 == 1;
            Run pending = Fixture.run(s.p(), v1.id(), RunIds.forOccurrence(first));
            CompletableFuture<?> sweep = CompletableFuture.runAsync(() -> {
                await(go);
                if (bare) {
                    s.p().dispatcher
                            .dispatch(List.of(pending), s.clock().instant().plus(Duration.ofMinutes(2)));
                } else {
                    s.p().sweeper.sweep();
                }
            });
            CompletableFuture<JobView> update = CompletableFuture.supplyAsync(() -> {
                await(go);
                return s.p().jobService
                        .update(
                                OWNER,
                                v1.id(),
                                v1.etag(),
                                s.request(Duration.ofMinutes(10), first.plus(Duration.ofMinutes(5))));
            });
            sweep.get();
            JobView v2 = update.get();

            Job job = s.p().jobs.get(v1.id()).orElseThrow();
            assertThat(v2.version()).isEqualTo(2);
            assertThat(s.scheduled(v1.id()))
                    .extracting(Run::runId)
                    .as("round %d", i)
                    .containsExactly(job.pendingRunId());
            assertThat(job.nextRunAt()).isEqualTo(first.plus(Duration.ofMinutes(5)));
            Run old = Fixture.run(s.p(), v1.id(), RunIds.forOccurrence(first));
            assertThat(old.state()).as("round %d", i).isIn(RunState.QUEUED, RunState.CANCELLED);
            if (old.state() == RunState.QUEUED) {
                sweepWon++;
            }
            s.p().deletions.delete(OWNER, v1.id());
        }
        System.out.println("[update race] the sweep sent the old pending run first in " + sweepWon + " of 12 rounds");
    }

    private static void await(CyclicBarrier b) {
        try {
            b.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- backfill ---------------------------------------------------------------------------------------------

    /** A job every 10 minutes since two hours ago, its pending run the next future occurrence. */
    private static Job tenMinuteJob(Stack s, Instant now) {
        Instant start = now.minus(Duration.ofHours(2));
        Instant next = start.plus(Duration.ofMinutes(130));
        return Fixture.insertJob(
                s.p(), Fixture.interval(Duration.ofMinutes(10), start), next, now, 3, FiringPolicy.DEFAULT);
    }

    @Test
    void backfillCreatesAndSendsEachPastOccurrenceOnceAndIsIdempotent() {
        Instant now = realNow().truncatedTo(ChronoUnit.MINUTES);
        Stack s = stack(now);
        Job job = tenMinuteJob(s, now);
        BackfillRequest range = new BackfillRequest(
                now.minus(Duration.ofHours(2)).toString(),
                now.minus(Duration.ofHours(1)).toString());

        BackfillView first = s.p().backfills.backfill(OWNER, job.id(), range);

        List<String> expected = IntStream.rangeClosed(0, 6)
                .mapToObj(k -> RunIds.forOccurrence(now.minus(Duration.ofMinutes(120 - 10L * k))))
                .toList();
        assertThat(first.occurrences()).isEqualTo(7);
        assertThat(first.created()).containsExactlyElementsOf(expected);
        assertThat(first.alreadyExisting()).isZero();
        assertThat(expected)
                .allSatisfy(id ->
                        assertThat(Fixture.run(s.p(), job.id(), id).state()).isEqualTo(RunState.QUEUED));
        assertThat(Fixture.receiveVisible(s.p())).hasSize(7);

        BackfillView again = s.p().backfills.backfill(OWNER, job.id(), range);

        assertThat(again.created()).isEmpty();
        assertThat(again.alreadyExisting()).isEqualTo(7);
        assertThat(Fixture.runsOf(s.p(), job.id())).hasSize(8);
        assertThat(s.p().jobs.get(job.id()).orElseThrow().pendingRunId()).isEqualTo(job.pendingRunId());
    }

    @Test
    void badBackfillsAreRefusedNamingTheFieldAndWriteNothing() {
        Instant now = realNow();
        Stack s = stack(now);
        Job job = tenMinuteJob(s, now);
        Job once = Fixture.insertOnceJob(s.p(), now.plus(Duration.ofHours(1)), now);

        assertThat(fields(() -> s.backfill(job.id(), null, now.plusSeconds(60))))
                .containsExactly("from", "to");
        assertThat(fields(() -> s.backfill(job.id(), now, now.minusSeconds(60))))
                .containsExactly("to");
        Job everyFiveSeconds = Fixture.insertJob(
                s.p(),
                Fixture.interval(Duration.ofSeconds(5), now.minus(Duration.ofHours(2))),
                now.plusSeconds(5),
                now,
                3,
                FiringPolicy.DEFAULT);
        assertThat(fields(() -> s.backfill(everyFiveSeconds.id(), now.minus(Duration.ofHours(2)), now)))
                .containsExactly("to");
        assertThat(Fixture.runsOf(s.p(), everyFiveSeconds.id())).hasSize(1);
        assertThat(fields(() -> s.backfill(once.id(), now.minus(Duration.ofDays(1)), now)))
                .containsExactly("schedule");
        s.p().lifecycle.pause(OWNER, job.id());
        assertThatThrownBy(() -> s.backfill(job.id(), now.minus(Duration.ofHours(1)), now))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("PAUSED");

        assertThat(Fixture.runsOf(s.p(), job.id())).extracting(Run::state).containsExactly(RunState.CANCELLED);
        assertThat(Fixture.runsOf(s.p(), once.id())).hasSize(1);
    }

    private static List<String> fields(Runnable r) {
        try {
            r.run();
        } catch (ValidationException e) {
            assertThat(e.kind()).isEqualTo(Rejection.INVALID);
            return e.errors().stream().map(FieldError::field).toList();
        }
        throw new AssertionError("no ValidationException");
    }

    @Test
    void theJobMovesOnPastOccurrencesABackfillAlreadyCreated() {
        Instant t0 = realNow().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
        Stack s = stack(t0);
        assertThat(s.p().watermarks.advance(TimeBuckets.bucketOf(t0), t0)).isTrue();
        Job job = Fixture.insertJob(
                s.p(),
                Fixture.interval(Duration.ofMinutes(10), t0.plus(Duration.ofMinutes(10))),
                t0.plus(Duration.ofMinutes(10)),
                t0,
                3,
                FiringPolicy.DEFAULT);
        s.clock().set(t0.plus(Duration.ofMinutes(45)));
        BackfillView b = s.backfill(job.id(), t0.plus(Duration.ofMinutes(20)), t0.plus(Duration.ofMinutes(40)));
        assertThat(b.created()).hasSize(3);

        s.p().sweeper.sweep();

        Job after = s.p().jobs.get(job.id()).orElseThrow();
        assertThat(after.pendingRunId()).isEqualTo(RunIds.forOccurrence(t0.plus(Duration.ofMinutes(50))));
        assertThat(after.state()).isEqualTo(JobState.ACTIVE);
        assertThat(Fixture.runsOf(s.p(), job.id()))
                .extracting(Run::state)
                .containsExactly(
                        RunState.QUEUED, RunState.QUEUED, RunState.QUEUED, RunState.QUEUED, RunState.SCHEDULED);
        assertThat(Fixture.receiveVisible(s.p())).hasSize(4);
    }
}
