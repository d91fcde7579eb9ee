package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.store.Claims;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A tenant's running limit, on DynamoDB Local: claims of runs of several jobs (whose runs may overlap) of one tenant
 * take its slots, exactly, and a slot is free again when its run ends, whether or not its executor gave it back.
 */
class TenantLimitClaimsTest {
    private final Instant now = Instant.parse("2030-01-01T10:00:00Z");
    private final Punctual p = Fixture.stackAt(now);
    private final Claims claims = new Claims(p.jobs, p.runs, p.tx, p.tenantSlots);

    /** {@code jobs} jobs of one tenant (runs may overlap), each with {@code runsEach} runs due now: job/run ids. */
    private List<List<String>> runsOf(int jobs, int runsEach) {
        List<List<String>> out = new ArrayList<>();
        for (int j = 0; j < jobs; j++) {
            Job job = Fixture.insertJob(p, Fixture.interval(Duration.ofMinutes(1), now), now, now, 3);
            out.add(List.of(job.id(), job.pendingRunId()));
            for (int i = 1; i < runsEach; i++) {
                Instant at = now.minusSeconds(i);
                Run run = Run.scheduled(job.id(), RunIds.forOccurrence(at), job.owner(), at, 3, now);
                assertThat(p.tx.write(List.of(p.runs.create(Change.of(Transition.SCHEDULE, run, now))))
                                .won())
                        .isTrue();
                out.add(List.of(job.id(), run.runId()));
            }
        }
        return out;
    }

    /** The claim as the executor makes it under a limit: a slot picked, the transaction; again on a lost race. */
    private Claims.Exclusive claim(List<String> run, int limit, String executor, Instant at) {
        Claims.Exclusive last = new Claims.Conflict();
        for (int race = 0; race < 5; race++) {
            Optional<Claims.TenantSlot> slot = claims.tenantSlotFor(Fixture.OWNER, limit, run.get(0), run.get(1), at);
            if (slot.isEmpty()) {
                return new Claims.TenantFull(limit);
            }
            Change grant = Change.of(Transition.CLAIM, run.get(0), run.get(1), at)
                    .withLease(executor, at.plus(Duration.ofMinutes(1)));
            last = claims.claim(grant, null, null, slot.get(), at);
            if (!(last instanceof Claims.TenantSlotLost) && !(last instanceof Claims.Conflict)) {
                return last;
            }
        }
        return last;
    }

    private long running(List<List<String>> runs) {
        return runs.stream()
                .filter(r -> Fixture.run(p, r.get(0), r.get(1)).state() == RunState.RUNNING)
                .count();
    }

    @Test
    void twelveClaimsRacingForATenantOfThreeLeaveExactlyThreeRunning() throws Exception {
        List<List<String>> runs = runsOf(4, 3);
        ExecutorService threads = Executors.newFixedThreadPool(12);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Claims.Exclusive>> claimed = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                List<String> run = runs.get(i);
                String executor = "ex-" + i;
                claimed.add(threads.submit(() -> {
                    go.await();
                    return claim(run, 3, executor, now);
                }));
            }
            go.countDown();
            int won = 0;
            int full = 0;
            for (var f : claimed) {
                Claims.Exclusive e = f.get();
                won += e instanceof Claims.Won ? 1 : 0;
                full += e instanceof Claims.TenantFull ? 1 : 0;
            }
            assertThat(running(runs)).as("RUNNING at once").isEqualTo(won).isEqualTo(3);
            assertThat(full).as("the others found the tenant full").isEqualTo(9);
            // None of those waiting used an attempt.
            assertThat(runs.stream()
                            .map(r -> Fixture.run(p, r.get(0), r.get(1)))
                            .filter(r -> r.state() != RunState.RUNNING))
                    .allSatisfy(r -> assertThat(r.attempt()).isZero());
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aSlotIsFreeOnceItsRunEndsGivenBackOrNot() {
        List<List<String>> runs = runsOf(3, 1);
        Optional<Claims.TenantSlot> first = claims.tenantSlotFor(
                Fixture.OWNER, 2, runs.get(0).get(0), runs.get(0).get(1), now);
        Change grant = Change.of(
                        Transition.CLAIM, runs.get(0).get(0), runs.get(0).get(1), now)
                .withLease("ex-a", now.plus(Duration.ofMinutes(1)));
        assertThat(claims.claim(grant, null, null, first.orElseThrow(), now)).isEqualTo(new Claims.Won());
        assertThat(claim(runs.get(1), 2, "ex-b", now)).isEqualTo(new Claims.Won());
        assertThat(claim(runs.get(2), 2, "ex-c", now)).as("two of two running").isInstanceOf(Claims.TenantFull.class);

        // The first run ends and its executor gives its slot back: the third takes it.
        Run one = Fixture.run(p, runs.get(0).get(0), runs.get(0).get(1));
        assertThat(p.runs.apply(Change.of(Transition.SUCCEED, one, now)
                                .withExecutor("ex-a")
                                .withExitCode(0))
                        .won())
                .isTrue();
        claims.release(first.orElseThrow());
        assertThat(claim(runs.get(2), 2, "ex-c", now)).isEqualTo(new Claims.Won());
        assertThat(claim(runs.get(0), 2, "ex-d", now))
                .as("full again (and that run is finished anyway)")
                .isNotEqualTo(new Claims.Won());

        // The second run's executor dies: no outcome, no give-back. Once its lease has expired its slot is taken
        // over, by a run of the tenant that was waiting (a fresh run of the first job).
        Instant later = now.plus(Duration.ofMinutes(2));
        Run fresh = Run.scheduled(runs.get(0).get(0), RunIds.forOccurrence(later), Fixture.OWNER, later, 3, later);
        assertThat(p.tx.write(List.of(p.runs.create(Change.of(Transition.SCHEDULE, fresh, later))))
                        .won())
                .isTrue();
        assertThat(claim(List.of(fresh.jobId(), fresh.runId()), 2, "ex-e", now.plusSeconds(30)))
                .as("the dead executor's lease is still live")
                .isInstanceOf(Claims.TenantFull.class);
        assertThat(claim(List.of(fresh.jobId(), fresh.runId()), 2, "ex-e", later))
                .isEqualTo(new Claims.Won());
    }
}
