package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static dev.punctual.core.it.Fixture.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.error.ConflictException;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobLifecycle;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.ResumeRequest;
import dev.punctual.core.service.RunView;
import dev.punctual.core.service.TriggerRequest;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Trigger, pause and resume (with each catch-up policy) on the emulators. */
class LifecycleTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    private Punctual realTimeStackWithExecutor() {
        Punctual p = Fixture.realTimeStack();
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        return p;
    }

    private static JobView createWithWitness(Punctual p, ScheduleSpec schedule, Path witness) {
        return Fixture.createJob(
                p,
                "lifecycle",
                "echo \"$SCHEDULER_RUN_ID\" >> \"$WITNESS\"",
                schedule,
                j -> j.env(Fixture.witnessEnv(witness)));
    }

    @Test
    void aTriggerMayRunWithItsOwnArgsAndEnvForThatRunOnly() {
        Punctual p = realTimeStackWithExecutor();
        Path witness = Fixture.witness(tmp);
        Instant start = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        JobView job = Fixture.createJob(
                p,
                "overrides",
                "echo \"$MODE $* $WITNESS_TAG\" >> \"$WITNESS\"",
                ScheduleSpec.interval("PT1H", start.toString(), null),
                j -> j.args(List.of("daily"))
                        .env(Map.of("WITNESS", witness.toString(), "MODE", "normal", "WITNESS_TAG", "job")));

        RunView once = p.lifecycle.trigger(
                OWNER, job.id(), new TriggerRequest(List.of("backfill", "2026-11-01"), Map.of("MODE", "catch-up")));
        assertThat(once.args()).containsExactly("backfill", "2026-11-01");
        assertThat(once.env()).containsExactlyEntriesOf(Map.of("MODE", "catch-up"));
        await().atMost(Duration.ofSeconds(15))
                .until(() -> Fixture.run(p, job.id(), once.runId()).state() == RunState.SUCCEEDED);
        RunView plain = p.lifecycle.trigger(OWNER, job.id());
        await().atMost(Duration.ofSeconds(15))
                .until(() -> Fixture.run(p, job.id(), plain.runId()).state() == RunState.SUCCEEDED);

        // The override's run had its own args and its env over the job's; the next run, the job's own.
        assertThat(lines(witness)).containsExactly("catch-up backfill 2026-11-01 job", "normal daily job");
        assertThat(plain.args()).isNull();
        assertThat(p.jobService.get(OWNER, job.id()).args()).containsExactly("daily");
    }

    @Test
    void aTriggerWithBadOverridesIsRefusedAndRunsNothing() {
        Punctual p = Fixture.realTimeStack();
        JobView job = Fixture.createJob(
                p,
                "overrides",
                "true",
                ScheduleSpec.interval(
                        "PT1H", Instant.now().plus(Duration.ofHours(1)).toString(), null),
                j -> j.secrets(Map.of("TOKEN", "s3cr3t")));
        List<String> withNull = new ArrayList<>(List.of("ok"));
        withNull.add(null);
        assertThatThrownBy(() -> p.lifecycle.trigger(
                        OWNER, job.id(), new TriggerRequest(withNull, Map.of("LD_PRELOAD", "/x.so", "TOKEN", "x"))))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactlyInAnyOrder("args[1]", "env.LD_PRELOAD", "env.TOKEN"));
        assertThat(Fixture.runsOf(p, job.id())).hasSize(1);
    }

    @Test
    void triggerRunsOnceNowAndLeavesThePendingRunUntouched() {
        Punctual p = realTimeStackWithExecutor();
        Path witness = Fixture.witness(tmp);
        Instant start = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        JobView job = createWithWitness(p, ScheduleSpec.interval("PT1H", start.toString(), null), witness);
        Job before = p.jobs.get(job.id()).orElseThrow();

        Instant triggeredAt = Instant.now();
        RunView triggered = p.lifecycle.trigger(OWNER, job.id());

        assertThat(triggered.runId()).matches("\\d{8}T\\d{6}\\.\\d{3}Z-t[0-9a-f]{6}");
        assertThat(triggered.state()).as("dispatched at once").isIn("QUEUED", "RUNNING", "SUCCEEDED");
        assertThat(Instant.parse(triggered.scheduledAt())).isBetween(triggeredAt.minusMillis(1), Instant.now());
        await().atMost(Duration.ofSeconds(15))
                .until(() -> Fixture.run(p, job.id(), triggered.runId()).state() == RunState.SUCCEEDED);
        assertThat(lines(witness)).containsExactly(triggered.runId());
        Job after = p.jobs.get(job.id()).orElseThrow();
        assertThat(after.pendingRunId()).isEqualTo(before.pendingRunId()).isEqualTo(RunIds.forOccurrence(start));
        assertThat(after.nextRunAt()).isEqualTo(start);
        assertThat(after.state()).isEqualTo(JobState.ACTIVE);
        assertThat(Fixture.run(p, job.id(), before.pendingRunId()).state()).isEqualTo(RunState.SCHEDULED);
        assertThat(Fixture.runsOf(p, job.id())).hasSize(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> Fixture.queueCounts(p).total() == 0);
        assertThat(lines(witness)).hasSize(1);
    }

    @Test
    void pauseCancelsThePendingRunAndAQueuedRunNeverStarts() {
        Punctual p = realTimeStackWithExecutor();
        Path witness = Fixture.witness(tmp);
        Instant due = Instant.now().plusSeconds(6).truncatedTo(ChronoUnit.SECONDS);
        JobView job = createWithWitness(p, ScheduleSpec.interval("PT1H", due.toString(), null), witness);
        String queued = RunIds.forOccurrence(due);
        String pending = RunIds.forOccurrence(due.plus(Duration.ofHours(1)));
        assertThat(Fixture.run(p, job.id(), queued).state())
                .as("sent at creation")
                .isEqualTo(RunState.QUEUED);
        assertThat(p.jobs.get(job.id()).orElseThrow().pendingRunId()).isEqualTo(pending);

        Instant before = Instant.now();
        JobView paused = p.lifecycle.pause(OWNER, job.id());

        assertThat(paused.state()).isEqualTo("PAUSED");
        assertThat(paused.nextRunAt()).isNull();
        assertThat(Instant.parse(paused.pausedAt())).isBetween(before.truncatedTo(ChronoUnit.MILLIS), Instant.now());
        Job stored = p.jobs.get(job.id()).orElseThrow();
        assertThat(stored.pendingRunId()).isNull();
        Run cancelled = Fixture.run(p, job.id(), pending);
        assertThat(cancelled.state()).isEqualTo(RunState.CANCELLED);
        assertThat(cancelled.error()).isEqualTo("job paused");

        // The queued run's message arrives at its due time; the claim sees a paused job and cancels the run.
        await().atMost(Duration.ofSeconds(15))
                .until(() -> Fixture.run(p, job.id(), queued).state() == RunState.CANCELLED);
        Run r = Fixture.run(p, job.id(), queued);
        assertThat(r.error()).isEqualTo("job paused");
        assertThat(r.attempt()).isZero();
        // Claimed on its message's hint (the job's runs may overlap) half a second ahead of its instant, at most.
        assertThat(Instant.now()).isAfterOrEqualTo(due.minusSeconds(1));
        await().atMost(Duration.ofSeconds(5)).until(() -> Fixture.queueCounts(p).total() == 0);
        assertThat(Fixture.lines(witness)).isEmpty();
        assertThat(p.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.PAUSED);
    }

    /**
     * An hourly job, its first occurrence at t0 + 1 h, on a clock that stands at t0, ten hours behind real time: so
     * catch-up runs are sent undelayed and the next one is beyond the lookahead.
     */
    private record Hourly(Punctual p, SettableClock clock, Job job, Instant t0) {
        Instant at(int hours) {
            return t0.plus(Duration.ofHours(hours));
        }

        String runId(int hours) {
            return RunIds.forOccurrence(at(hours));
        }
    }

    private static Hourly hourlyJob() {
        Instant t0 = Instant.now().minus(Duration.ofHours(10)).truncatedTo(ChronoUnit.SECONDS);
        SettableClock clock = new SettableClock(t0);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        Instant first = t0.plus(Duration.ofHours(1));
        Job job = Fixture.insertJob(p, Fixture.interval(Duration.ofHours(1), first), first, t0, 3);
        return new Hourly(p, clock, job, t0);
    }

    /**
     * {@link #hourlyJob()} paused at t0 + 30 min and resumed with {@code catchUp} at t0 + 5 h 30 min: the
     * occurrences t0 + 1 h … t0 + 5 h were missed; active again, with the t0 + 6 h run pending.
     */
    private static Hourly resumedHourlyJob(String catchUp) {
        Hourly s = hourlyJob();
        s.clock().set(s.t0().plus(Duration.ofMinutes(30)));
        assertThat(s.p().lifecycle.pause(OWNER, s.job().id()).state()).isEqualTo("PAUSED");
        s.clock().set(s.t0().plus(Duration.ofHours(5)).plus(Duration.ofMinutes(30)));
        JobView resumed = s.p().lifecycle.resume(OWNER, s.job().id(), new ResumeRequest(catchUp));
        assertThat(resumed.state()).isEqualTo("ACTIVE");
        assertThat(resumed.pausedAt()).isNull();
        assertThat(resumed.nextRunAt()).isEqualTo(s.at(6).toString());
        Job job = s.p().jobs.get(s.job().id()).orElseThrow();
        assertThat(job.pendingRunId()).isEqualTo(s.runId(6));
        assertThat(Fixture.runsOf(s.p(), s.job().id()).stream()
                        .filter(r -> r.state() == RunState.SCHEDULED)
                        .map(Run::runId))
                .as("exactly one pending run")
                .containsExactly(s.runId(6));
        return s;
    }

    /** Each run of the job as (runId, state), oldest first. */
    private static List<Tuple> runStates(Punctual p, String jobId) {
        return Fixture.runsOf(p, jobId).stream()
                .map(r -> tuple(r.runId(), r.state()))
                .toList();
    }

    @Test
    void resumeWithSkipRunsNoneOfTheMissedOccurrences() {
        Hourly s = resumedHourlyJob("skip");

        assertThat(runStates(s.p(), s.job().id()))
                .containsExactly(tuple(s.runId(1), RunState.CANCELLED), tuple(s.runId(6), RunState.SCHEDULED));
        assertThat(Fixture.queueCounts(s.p()).total()).isZero();
    }

    @Test
    void resumeWithLatestRunsTheMostRecentMissedOccurrenceNow() {
        Hourly s = resumedHourlyJob("latest");

        assertThat(runStates(s.p(), s.job().id()))
                .containsExactly(
                        tuple(s.runId(1), RunState.CANCELLED),
                        tuple(s.runId(5), RunState.QUEUED),
                        tuple(s.runId(6), RunState.SCHEDULED));
        assertThat(Fixture.receiveVisible(s.p())).extracting(RunMessage::runId).containsExactly(s.runId(5));
    }

    @Test
    void resumeWithAllRunsEveryMissedOccurrenceNowIncludingTheCancelledPendingOne() {
        Hourly s = resumedHourlyJob("all");

        List<String> missed = IntStream.rangeClosed(1, 5).mapToObj(s::runId).toList();
        List<Run> runs = Fixture.runsOf(s.p(), s.job().id());
        assertThat(runs)
                .extracting(Run::runId)
                .containsExactlyElementsOf(
                        java.util.stream.Stream.concat(missed.stream(), java.util.stream.Stream.of(s.runId(6)))
                                .toList());
        assertThat(runs.subList(0, 5)).allSatisfy(r -> {
            assertThat(r.state()).isEqualTo(RunState.QUEUED);
            assertThat(r.error()).isNull();
        });
        assertThat(Fixture.receiveVisible(s.p()))
                .extracting(RunMessage::runId)
                .containsExactlyInAnyOrderElementsOf(missed);
    }

    @Test
    void aPendingRunALaggingSweepLeftDueBeforeThePauseIsCaughtUpToo() {
        Hourly s = hourlyJob();
        Punctual p = s.p();
        SettableClock clock = s.clock();
        Job job = s.job();
        Instant t0 = s.t0();
        // Paused 10 s after its pending run was due, which no sweep has sent yet.
        clock.set(t0.plus(Duration.ofHours(1)).plusSeconds(10));
        JobView paused = p.lifecycle.pause(OWNER, job.id());
        assertThat(paused.nextRunAt()).isNull();
        clock.set(t0.plus(Duration.ofHours(3)).plus(Duration.ofMinutes(30)));

        p.lifecycle.resume(OWNER, job.id(), new ResumeRequest("all"));

        List<String> expected = IntStream.rangeClosed(1, 4)
                .mapToObj(h -> RunIds.forOccurrence(t0.plus(Duration.ofHours(h))))
                .toList();
        assertThat(runStates(p, job.id()))
                .containsExactly(
                        tuple(expected.get(0), RunState.QUEUED),
                        tuple(expected.get(1), RunState.QUEUED),
                        tuple(expected.get(2), RunState.QUEUED),
                        tuple(expected.get(3), RunState.SCHEDULED));
        assertThat(p.jobs.get(job.id()).orElseThrow().pendingRunId()).isEqualTo(expected.get(3));
    }

    @Test
    void resumeWithAllIsCappedAtTheMostRecentHundredAcrossTwoTransactions() {
        Instant t0 = Instant.now().minus(Duration.ofHours(2)).truncatedTo(ChronoUnit.SECONDS);
        SettableClock clock = new SettableClock(t0);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        Job job = Fixture.insertJob(
                p, Fixture.interval(Duration.ofSeconds(5), t0.plusSeconds(5)), t0.plusSeconds(5), t0, 3);
        clock.set(t0.plusSeconds(1));
        p.lifecycle.pause(OWNER, job.id());
        // Occurrences t0 + 5 s … t0 + 1000 s were missed (200); t0 + 1005 s is next.
        clock.set(t0.plusSeconds(1002));

        JobView resumed = p.lifecycle.resume(OWNER, job.id(), new ResumeRequest("ALL"));

        assertThat(resumed.state()).isEqualTo("ACTIVE");
        assertThat(Fixture.run(p, job.id(), RunIds.forOccurrence(t0.plusSeconds(1005)))
                        .state())
                .as("the first future occurrence became the pending run, due within the lookahead: sent")
                .isEqualTo(RunState.QUEUED);
        List<Run> runs = Fixture.runsOf(p, job.id());
        List<Run> caughtUp = runs.stream()
                .filter(r -> r.scheduledAt().isBefore(t0.plusSeconds(1002)))
                .filter(r -> r.state() == RunState.QUEUED)
                .toList();
        assertThat(caughtUp).hasSize(JobLifecycle.MAX_CATCH_UP);
        assertThat(caughtUp.getFirst().scheduledAt()).isEqualTo(t0.plusSeconds(505));
        assertThat(caughtUp.getLast().scheduledAt()).isEqualTo(t0.plusSeconds(1000));
        // The pending one was dispatched too (it is within the lookahead), so its successors were materialized;
        // still exactly one SCHEDULED run, the job's pending one.
        Job after = p.jobs.get(job.id()).orElseThrow();
        assertThat(runs.stream().filter(r -> r.state() == RunState.SCHEDULED).map(Run::runId))
                .containsExactly(after.pendingRunId());
        assertThat(runs)
                .filteredOn(r -> r.scheduledAt().isBefore(t0.plusSeconds(505)))
                .extracting(Run::runId)
                .containsExactly(RunIds.forOccurrence(t0.plusSeconds(5)));
    }

    @Test
    void pauseRacingASweepThenResumeLeavesExactlyOnePendingRun() throws Exception {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Punctual p = Fixture.stackAt(now);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 5; round++) {
                Job job = Fixture.insertJob(
                        p, Fixture.interval(Duration.ofMinutes(1), now.plusSeconds(5)), now.plusSeconds(5), now, 3);
                CountDownLatch go = new CountDownLatch(1);
                Future<?> sweep = pool.submit(() -> {
                    go.await();
                    return p.sweeper.sweep();
                });
                Future<JobView> pause = pool.submit(() -> {
                    go.await();
                    return p.lifecycle.pause(OWNER, job.id());
                });
                go.countDown();
                sweep.get(30, TimeUnit.SECONDS);
                assertThat(pause.get(30, TimeUnit.SECONDS).state()).isEqualTo("PAUSED");
                assertThat(Fixture.runsOf(p, job.id())).noneMatch(r -> r.state() == RunState.SCHEDULED);

                JobView resumed = p.lifecycle.resume(OWNER, job.id(), null);

                assertThat(resumed.state()).isEqualTo("ACTIVE");
                Job after = p.jobs.get(job.id()).orElseThrow();
                assertThat(Fixture.runsOf(p, job.id()).stream()
                                .filter(r -> r.state() == RunState.SCHEDULED)
                                .map(Run::runId))
                        .as("round %d", round)
                        .containsExactly(after.pendingRunId());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void refusalsAnswerConflictOrNotFoundAndWriteNothing() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Punctual p = Fixture.stackAt(now);
        Job active = Fixture.insertJob(
                p,
                Fixture.interval(Duration.ofHours(1), now.plus(Duration.ofHours(1))),
                now.plus(Duration.ofHours(1)),
                now,
                3);

        assertThatThrownBy(() -> p.lifecycle.resume(OWNER, active.id(), null))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("ACTIVE");
        assertThatThrownBy(() -> p.lifecycle.resume(OWNER, active.id(), new ResumeRequest("some")))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).kind()).isEqualTo(Rejection.INVALID))
                .satisfies(e -> assertThat(
                                ((ValidationException) e).errors().getFirst().field())
                        .isEqualTo("catchUp"));

        JobView paused = p.lifecycle.pause(OWNER, active.id());
        JobView again = p.lifecycle.pause(OWNER, active.id());
        assertThat(again).as("pausing a paused job changes nothing").isEqualTo(paused);
        assertThatThrownBy(() -> p.lifecycle.trigger(OWNER, active.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("PAUSED");
        assertThat(Fixture.runsOf(p, active.id())).hasSize(1);

        p.deletions.delete(OWNER, active.id());
        assertThatThrownBy(() -> p.lifecycle.resume(OWNER, active.id(), null))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("DELETED");
        Job deleted = Fixture.insertJob(
                p,
                Fixture.interval(Duration.ofHours(1), now.plus(Duration.ofHours(1))),
                now.plus(Duration.ofHours(1)),
                now,
                3);
        p.deletions.delete(OWNER, deleted.id());
        assertThatThrownBy(() -> p.lifecycle.pause(OWNER, deleted.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("DELETED");
        assertThatThrownBy(() -> p.lifecycle.trigger(OWNER, deleted.id()))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("DELETED");
        assertThat(Fixture.runsOf(p, deleted.id())).hasSize(1);
        assertThat(p.jobs.get(deleted.id()).orElseThrow().state()).isEqualTo(JobState.DELETED);

        assertThatThrownBy(() -> p.lifecycle.trigger(OWNER, "job_nope")).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> p.lifecycle.pause("someone-else", deleted.id()))
                .isInstanceOf(NotFoundException.class);
        assertThat(Fixture.queueCounts(p).total()).isZero();
    }
}
