package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.store.Claims;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The exclusive claim ({@code overlap: forbid|queue}) on DynamoDB Local: won, and each condition it can lose on. */
class ClaimsTest {
    private final Instant now = Instant.parse("2030-01-01T10:00:00Z");
    private final Punctual p = Fixture.stackAt(now);
    private final Claims claims = new Claims(p.jobs, p.runs, p.tx, p.tenantSlots);

    private Change grant(String jobId, String runId) {
        return Change.of(Transition.CLAIM, jobId, runId, now).withLease("ex-a", now.plus(Duration.ofMinutes(1)));
    }

    @Test
    void theFirstClaimWinsAndEachLaterOneSaysWhichConditionItLostOn() {
        Job job = Fixture.insertJob(
                p,
                Fixture.interval(Duration.ofMinutes(1), now),
                now,
                now,
                3,
                new FiringPolicy(null, null, Overlap.FORBID, null));
        String first = job.pendingRunId();
        // A second run of the job, due now too (as a trigger's would be).
        Instant other = now.minusSeconds(30);
        Run second = Run.scheduled(job.id(), RunIds.forOccurrence(other), job.owner(), other, 3, now);
        assertThat(p.tx.write(List.of(p.runs.create(Change.of(Transition.SCHEDULE, second, now))))
                        .won())
                .isTrue();

        assertThat(claims.claimExclusive(grant(job.id(), first), null, new Claims.Slot(0, null), now))
                .isEqualTo(new Claims.Won());
        assertThat(Fixture.run(p, job.id(), first).state()).isEqualTo(RunState.RUNNING);
        assertThat(p.jobs.get(job.id()).orElseThrow().activeRuns()).containsExactly(first);

        assertThat(claims.claimExclusive(grant(job.id(), second.runId()), null, new Claims.Slot(0, null), now))
                .as("the job's active run is not the one expected any more")
                .isEqualTo(new Claims.JobLost(Optional.of(JobState.ACTIVE)));
        assertThat(claims.claimExclusive(grant(job.id(), second.runId()), null, new Claims.Slot(0, first), now))
                .as("the active run is running under a live lease")
                .isEqualTo(new Claims.OverlapRunning(first));
        assertThat(claims.claimExclusive(grant(job.id(), first), null, new Claims.Slot(0, first), now))
                .as("the run itself is running under a live lease: the run as it is comes back")
                .isInstanceOfSatisfying(Claims.RunLost.class, lost -> {
                    assertThat(lost.seen().state()).isEqualTo(RunState.RUNNING);
                    assertThat(lost.seen().leaseOwner()).isEqualTo("ex-a");
                });
        assertThat(claims.claimExclusive(grant(job.id(), "no-such-run"), null, new Claims.Slot(0, first), now))
                .as("no such run")
                .isEqualTo(new Claims.RunLost(null));

        assertThat(p.tx.write(List.of(p.jobs.markPaused(job.id(), job.owner(), first, null, now)))
                        .won())
                .isTrue();
        assertThat(claims.claimExclusive(grant(job.id(), second.runId()), null, new Claims.Slot(0, first), now))
                .as("a paused job's run must not start")
                .isEqualTo(new Claims.JobLost(Optional.of(JobState.PAUSED)));
        assertThat(Fixture.run(p, job.id(), second.runId()).state())
                .as("nothing written by a lost claim")
                .isEqualTo(RunState.SCHEDULED);
    }

    /** A job under {@code overlap: queue} with {@code maxConcurrency} {@code limit}, and {@code extra} more runs due now. */
    private List<String> jobWithRuns(int limit, int extra, Job[] out) {
        Job job = Fixture.insertJob(
                p,
                Fixture.interval(Duration.ofMinutes(1), now),
                now,
                now,
                3,
                new FiringPolicy(null, null, Overlap.QUEUE, null, limit));
        out[0] = job;
        List<String> ids = new java.util.ArrayList<>(List.of(job.pendingRunId()));
        for (int i = 1; i <= extra; i++) {
            Instant at = now.minusSeconds(i);
            Run run = Run.scheduled(job.id(), RunIds.forOccurrence(at), job.owner(), at, 3, now);
            assertThat(p.tx.write(List.of(p.runs.create(Change.of(Transition.SCHEDULE, run, now))))
                            .won())
                    .isTrue();
            ids.add(run.runId());
        }
        return ids;
    }

    /** The claim as the executor makes it: the job read, a slot picked, the transaction; again on a lost race. */
    private Claims.Exclusive claimAsTheExecutorDoes(String jobId, String runId, String executor) {
        Claims.Exclusive last = new Claims.Conflict();
        for (int race = 0; race < 5; race++) {
            Job job = p.jobs.get(jobId).orElseThrow();
            Optional<Claims.Slot> slot = claims.slotFor(job, runId, now);
            if (slot.isEmpty()) {
                return new Claims.OverlapRunning("full");
            }
            Change grant =
                    Change.of(Transition.CLAIM, jobId, runId, now).withLease(executor, now.plus(Duration.ofMinutes(1)));
            last = claims.claimExclusive(grant, job, slot.get(), now);
            if (!(last instanceof Claims.JobLost) && !(last instanceof Claims.Conflict)) {
                return last;
            }
        }
        return last;
    }

    @Test
    void aJobOfTwoSlotsRunsTwoAtOnceAndAThirdWaitsUntilOneEnds() {
        Job[] job = new Job[1];
        List<String> runs = jobWithRuns(2, 2, job);
        String jobId = job[0].id();
        assertThat(claimAsTheExecutorDoes(jobId, runs.get(0), "ex-a")).isEqualTo(new Claims.Won());
        assertThat(claimAsTheExecutorDoes(jobId, runs.get(1), "ex-b")).isEqualTo(new Claims.Won());
        List<String> slots = p.jobs.get(jobId).orElseThrow().activeRuns();
        assertThat(slots).containsExactlyInAnyOrder(runs.get(0), runs.get(1));
        assertThat(claimAsTheExecutorDoes(jobId, runs.get(2), "ex-c"))
                .as("both slots' runs are running")
                .isInstanceOf(Claims.OverlapRunning.class);
        assertThat(Fixture.run(p, jobId, runs.get(2)).state()).isEqualTo(RunState.SCHEDULED);

        Run second = Fixture.run(p, jobId, runs.get(1));
        assertThat(p.runs.apply(Change.of(Transition.SUCCEED, second, now)
                                .withExecutor("ex-b")
                                .withExitCode(0))
                        .won())
                .isTrue();
        assertThat(claims.slotFor(p.jobs.get(jobId).orElseThrow(), runs.get(2), now))
                .as("the slot whose run ended")
                .contains(new Claims.Slot(slots.indexOf(runs.get(1)), runs.get(1)));
        assertThat(claimAsTheExecutorDoes(jobId, runs.get(2), "ex-c")).isEqualTo(new Claims.Won());
        List<String> after = new java.util.ArrayList<>(slots);
        after.set(slots.indexOf(runs.get(1)), runs.get(2));
        assertThat(p.jobs.get(jobId).orElseThrow().activeRuns())
                .as("the third in the ended run's slot")
                .isEqualTo(after);
    }

    @Test
    void aSlotPastTheJobsLimitCannotBeTaken() {
        Job[] job = new Job[1];
        List<String> runs = jobWithRuns(1, 1, job);
        assertThat(claims.claimExclusive(grant(job[0].id(), runs.get(1)), job[0], new Claims.Slot(1, null), now))
                .as("slot 1 of a job of one")
                .isEqualTo(new Claims.JobLost(Optional.of(JobState.ACTIVE)));
        assertThat(Fixture.run(p, job[0].id(), runs.get(1)).state()).isEqualTo(RunState.SCHEDULED);
    }

    @Test
    void executorsRacingToClaimTheRunsOfAJobOfThreeNeverRunFour() throws Exception {
        Job[] job = new Job[1];
        List<String> runs = jobWithRuns(3, 9, job);
        String jobId = job[0].id();
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(10);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        try {
            List<java.util.concurrent.Future<Claims.Exclusive>> claimed = new java.util.ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                String run = runs.get(i);
                String executor = "ex-" + i;
                claimed.add(threads.submit(() -> {
                    go.await();
                    return claimAsTheExecutorDoes(jobId, run, executor);
                }));
            }
            go.countDown();
            int won = 0;
            for (var f : claimed) {
                won += f.get() instanceof Claims.Won ? 1 : 0;
            }
            long running = runs.stream()
                    .filter(r -> Fixture.run(p, jobId, r).state() == RunState.RUNNING)
                    .count();
            assertThat(running).as("RUNNING at once").isEqualTo(won).isEqualTo(3);
        } finally {
            threads.shutdownNow();
        }
    }
}
