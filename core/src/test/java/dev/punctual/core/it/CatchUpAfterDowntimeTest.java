package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import dev.punctual.core.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Catch-up after the scheduler could not dispatch for a while: a per-minute job whose pending run (t0 + 1 min) was
 * due half an hour before the sweeper came back, at t0 + 30 min 30 s. Occurrences before now − 1 min (t0 + 1 …
 * t0 + 29 min) were missed; t0 + 30, 31 and 32 min are due within the lookahead and sent as usual; t0 + 33 min is
 * the next pending run. The clock is hours behind real time, so every message is sent undelayed.
 */
class CatchUpAfterDowntimeTest {

    private record Outage(Punctual p, Job job, Instant t0) {
        Instant at(int minutes) {
            return t0.plus(Duration.ofMinutes(minutes));
        }

        List<Run> runs() {
            return Fixture.runsOf(p, job.id());
        }

        List<Integer> minutesIn(RunState state) {
            return runs().stream()
                    .filter(r -> r.state() == state)
                    .map(r -> (int) Duration.between(t0, r.occurrence()).toMinutes())
                    .toList();
        }
    }

    private static Outage sweepAfterOutage(CatchUp policy) {
        Instant t0 = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
        SettableClock clock = new SettableClock(t0);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        assertThat(p.watermarks.advance(TimeBuckets.bucketOf(t0), t0)).isTrue();
        Job job = Fixture.insertJob(
                p,
                Fixture.interval(Duration.ofMinutes(1), t0.plus(Duration.ofMinutes(1))),
                t0.plus(Duration.ofMinutes(1)),
                t0,
                3,
                new FiringPolicy(null, policy, Overlap.ALLOW, null));
        clock.set(t0.plus(Duration.ofMinutes(30)).plusSeconds(30));
        p.sweeper.sweep();
        return new Outage(p, job, t0);
    }

    private static List<Integer> minutes(int from, int to) {
        return IntStream.rangeClosed(from, to).boxed().toList();
    }

    private static void assertPendingIs33(Outage o) {
        assertThat(o.minutesIn(RunState.SCHEDULED))
                .as("exactly one pending run")
                .containsExactly(33);
        assertThat(o.p().jobs.get(o.job().id()).orElseThrow().pendingRunId()).isEqualTo(RunIds.forOccurrence(o.at(33)));
    }

    private static void assertSkippedFirstSaying(Outage o, String mode) {
        Run skipped = Fixture.run(o.p(), o.job().id(), RunIds.forOccurrence(o.at(1)));
        assertThat(skipped.state()).isEqualTo(RunState.SKIPPED);
        assertThat(skipped.error()).contains("catchUp " + mode).contains(o.at(1).toString());
        assertThat(o.minutesIn(RunState.SKIPPED))
                .as("one record of what was skipped, not one per occurrence")
                .containsExactly(1);
    }

    @Test
    void allByDefaultRunsEveryMissedOccurrence() {
        Outage o = sweepAfterOutage(CatchUp.DEFAULT);

        assertThat(o.minutesIn(RunState.QUEUED)).containsExactlyElementsOf(minutes(1, 32));
        assertThat(o.minutesIn(RunState.SKIPPED)).isEmpty();
        assertPendingIs33(o);
    }

    /**
     * Each policy that leaves the pending run out, and the runs it sends: skip none of the missed ones; latest the
     * most recent; all the most recent maxRuns (5), or those younger than maxAge (10 min: now − 10 min is
     * t0 + 20 min 30 s, so t0 + 21 min is the oldest kept). Then t0 + 30 … 32 min as usual.
     */
    static Stream<Arguments> policiesThatLeaveRunsOut() {
        return Stream.of(
                Arguments.of(CatchUp.DEFAULT.withMode(CatchUp.Mode.SKIP), "skip", minutes(30, 32)),
                Arguments.of(CatchUp.DEFAULT.withMode(CatchUp.Mode.LATEST), "latest", minutes(29, 32)),
                Arguments.of(new CatchUp(CatchUp.Mode.ALL, Duration.ofDays(1), 5), "all", minutes(25, 32)),
                Arguments.of(new CatchUp(CatchUp.Mode.ALL, Duration.ofMinutes(10), 100), "all", minutes(21, 32)));
    }

    @ParameterizedTest
    @MethodSource("policiesThatLeaveRunsOut")
    void thePolicyDecidesWhichMissedOccurrencesRunAndTheRestIsRecorded(
            CatchUp policy, String mode, List<Integer> queued) {
        Outage o = sweepAfterOutage(policy);

        assertSkippedFirstSaying(o, mode);
        assertThat(o.minutesIn(RunState.QUEUED)).containsExactlyElementsOf(queued);
        assertPendingIs33(o);
    }

    @Test
    void aLateOneOffRunIsAlwaysSent() {
        Instant t0 = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
        SettableClock clock = new SettableClock(t0);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        assertThat(p.watermarks.advance(TimeBuckets.bucketOf(t0), t0)).isTrue();
        Job job = Fixture.insertJob(
                p,
                Fixture.once(t0.plusSeconds(60)),
                t0.plusSeconds(60),
                t0,
                3,
                new FiringPolicy(null, CatchUp.DEFAULT.withMode(CatchUp.Mode.SKIP), Overlap.ALLOW, null));
        clock.set(t0.plus(Duration.ofMinutes(30)));

        p.sweeper.sweep();

        assertThat(Fixture.runsOf(p, job.id())).extracting(Run::state).containsExactly(RunState.QUEUED);
    }
}
