package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.RunHistory;
import dev.punctual.core.run.Transition;
import dev.punctual.core.service.RunView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A run's history on the emulators: a failed attempt's facts kept when a retry replaces them, a dead attempt's when
 * it is retried by hand, bounded; and what the view makes of it (origin, lateness, attempts).
 */
class RunHistoryTest {
    private static final Instant DUE = Instant.parse("2030-05-06T07:00:00Z");

    private Punctual p;
    private SettableClock clock;

    private RunView view(Job job) {
        return p.jobService.run(OWNER, job.id(), job.pendingRunId());
    }

    private void fail(Job job, int attempt, Instant started, Instant at, int code) {
        assertThat(p.runs.apply(Fixture.outcome(
                                        Transition.FAIL, job.id(), job.pendingRunId(), at, attempt, "ex-a", code)
                                .withStartedAt(started)
                                .withError("exited with code " + code))
                        .won())
                .isTrue();
    }

    @Test
    void aRetriedAttemptIsKeptAndTheRunsLatenessCountsFromItsFirstStart() {
        clock = new SettableClock(DUE);
        p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        Job job = Fixture.insertJob(p, Fixture.once(DUE), DUE, DUE.minusSeconds(60), 3);
        Instant firstStart = DUE.plusMillis(1_250);

        assertThat(Fixture.claim(p, job, "ex-a", DUE.plusSeconds(1))).isTrue();
        fail(job, 1, firstStart, DUE.plusSeconds(5), 2);
        RunView failed = view(job);
        assertThat(failed.state()).isEqualTo("FAILED");
        assertThat(failed.origin()).isEqualTo(RunView.SCHEDULED);
        assertThat(failed.lateness()).isEqualTo(1.25);
        // The failed attempt is still the run's current one: its facts are the run's own.
        assertThat(failed.attempts()).isEmpty();
        assertThat(failed.exitCode()).isEqualTo(2);

        assertThat(Fixture.claim(p, job, "ex-b", DUE.plusSeconds(10))).isTrue();
        RunView second = view(job);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.exitCode()).isNull();
        assertThat(second.attempts()).singleElement().satisfies(a -> {
            assertThat(a.attempt()).isEqualTo(1);
            assertThat(a.startedAt()).isEqualTo(firstStart.toString());
            assertThat(a.finishedAt()).isEqualTo(DUE.plusSeconds(5).toString());
            assertThat(a.exitCode()).isEqualTo(2);
            assertThat(a.error()).isEqualTo("exited with code 2");
            assertThat(a.executorId()).isEqualTo("ex-a");
        });
        // Lateness is the first attempt's, not the retry's.
        assertThat(second.lateness()).isEqualTo(1.25);
    }

    @Test
    void aDeadRunRetriedByHandSaysSoKeepsItsDeadAttemptAndKeepsAtMostTwentyAttempts() {
        clock = new SettableClock(DUE);
        p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        Job job = Fixture.insertJob(p, Fixture.once(DUE), DUE, DUE.minusSeconds(60), 1);
        Instant t = DUE;
        int rounds = RunHistory.KEPT + 5;
        for (int attempt = 1; attempt <= rounds; attempt++) {
            t = t.plusSeconds(10);
            clock.set(t);
            assertThat(Fixture.claim(p, job, "ex-a", t)).as("claim %d", attempt).isTrue();
            assertThat(Fixture.die(
                            p, job.id(), job.pendingRunId(), t.plusSeconds(1), attempt, "ex-a", 7, "no " + attempt))
                    .isTrue();
            clock.set(t.plusSeconds(2));
            RunView retried = p.deadLetters.retry(OWNER, job.id(), job.pendingRunId());
            assertThat(retried.origin()).isEqualTo(RunView.REDRIVEN);
            assertThat(retried.lateness()).isNull();
        }
        assertThat(Fixture.claim(p, job, "ex-a", t.plusSeconds(5))).isTrue();
        RunView v = view(job);
        assertThat(v.attempt()).isEqualTo(rounds + 1);
        // The newest KEPT, oldest first, each with its own outcome.
        assertThat(v.attempts()).hasSize(RunHistory.KEPT);
        assertThat(v.attempts().getFirst().attempt()).isEqualTo(rounds - RunHistory.KEPT + 1);
        assertThat(v.attempts().getLast().attempt()).isEqualTo(rounds);
        assertThat(v.attempts()).allSatisfy(a -> {
            assertThat(a.exitCode()).isEqualTo(7);
            assertThat(a.error()).isEqualTo("no " + a.attempt());
        });
        assertThat(Fixture.rawRun(p, job.id(), job.pendingRunId()).keySet().stream()
                        .filter(k -> k.startsWith("past_")))
                .hasSize(RunHistory.KEPT);
    }

    @Test
    void aRunCreatedAfterItWasDueIsBackfilledAndHasNoLateness() {
        clock = new SettableClock(DUE.plus(Duration.ofDays(2)));
        p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        Job job = Fixture.insertJob(p, Fixture.once(DUE), DUE, clock.instant(), 1);
        assertThat(Fixture.claim(p, job, "ex-a", clock.instant())).isTrue();
        assertThat(p.runs.apply(Fixture.outcome(
                                        Transition.SUCCEED, job.id(), job.pendingRunId(), clock.instant(), 1, "ex-a", 0)
                                .withStartedAt(clock.instant()))
                        .won())
                .isTrue();
        RunView v = view(job);
        assertThat(v.state()).isEqualTo("SUCCEEDED");
        assertThat(v.origin()).isEqualTo(RunView.BACKFILLED);
        assertThat(v.lateness()).isNull();
        assertThat(v.startedAt()).isEqualTo(clock.instant().toString());
        assertThat(v.createdAt()).isEqualTo(clock.instant().toString());
    }
}
