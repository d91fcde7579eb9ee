package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.RunView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each overlap policy with two runs of one job started at once (two triggers), on a real executor with four slots;
 * the binary itself witnesses when each run started and ended. And a run that waited past its job's maxRunAge.
 */
class OverlapAndMaxAgeTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    /** A run's [start, end] in epoch milliseconds, as the binary wrote them. */
    private record Span(String runId, long start, long end) {
        boolean overlaps(Span o) {
            return start < o.end && o.start < end;
        }
    }

    private List<Span> spans(Path witness) {
        List<String> lines = Fixture.lines(witness);
        List<Span> out = new ArrayList<>();
        for (String l : lines) {
            String[] f = l.split(" ");
            if (f[0].equals("start")) {
                String end = lines.stream()
                        .filter(x -> x.startsWith("end " + f[1] + " "))
                        .findFirst()
                        .orElseThrow();
                out.add(new Span(f[1], Long.parseLong(f[2]), Long.parseLong(end.split(" ")[2])));
            }
        }
        return out;
    }

    /** Two triggered runs of a job with the given overlap policy, each sleeping 3 s; both settled. */
    private List<RunView> twoRunsAtOnce(String overlap, Path witness) {
        Punctual p = Fixture.realTimeStack();
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        JobView job = spanJob(p, "overlap", 3, witness, j -> j.overlap(overlap));
        assertThat(job.overlap()).isEqualTo(overlap);
        RunView a = p.lifecycle.trigger(OWNER, job.id());
        RunView b = p.lifecycle.trigger(OWNER, job.id());
        await().atMost(Duration.ofSeconds(40))
                .until(() -> List.of(a, b).stream()
                        .allMatch(
                                r -> Fixture.run(p, job.id(), r.runId()).state().terminal()));
        return List.of(a, b).stream()
                .map(r -> RunView.of(Fixture.run(p, job.id(), r.runId()), null))
                .toList();
    }

    /** The spans of two runs that both succeeded. */
    private List<Span> bothSucceeded(List<RunView> runs, Path witness) {
        assertThat(runs).extracting(RunView::state).containsOnly("SUCCEEDED");
        List<Span> spans = spans(witness);
        assertThat(spans).hasSize(2);
        return spans;
    }

    /** A binary that writes its run's start and end times to the witness and sleeps {@code seconds} between. */
    private static String spanScript(int seconds) {
        return "echo \"start $SCHEDULER_RUN_ID $(date +%s%3N)\" >> \"$WITNESS\"; sleep " + seconds + ";"
                + " echo \"end $SCHEDULER_RUN_ID $(date +%s%3N)\" >> \"$WITNESS\"";
    }

    /**
     * A job of {@link #spanScript} runs due in an hour, so that only its triggered runs run now, with the firing
     * policy {@code policy} sets.
     */
    private static JobView spanJob(
            Punctual p, String name, int seconds, Path witness, UnaryOperator<JobRequest.Builder> policy) {
        Instant later = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        return Fixture.createJob(
                p,
                name,
                spanScript(seconds),
                Fixture.once(later),
                j -> policy.apply(j.env(Fixture.witnessEnv(witness))));
    }

    /** The most spans running at one instant. */
    private static int mostAtOnce(List<Span> spans) {
        int most = 0;
        for (Span s : spans) {
            // The count at a span's start is the most at any instant: every maximum begins with a start.
            int at = (int) spans.stream()
                    .filter(o -> o.start <= s.start && s.start < o.end)
                    .count();
            most = Math.max(most, at);
        }
        return most;
    }

    @Test
    void queueWithMaxConcurrencyTwoRunsTwoOfFiveAtOnceOnTwoExecutors() {
        Path witness = Fixture.witness(tmp);
        Punctual p = Fixture.realTimeStack();
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        executors.start(p, "ex-2", tmp.resolve("ex-2"));
        JobView job = spanJob(p, "limited", 2, witness, j -> j.overlap("queue").maxConcurrency(2));
        assertThat(job.maxConcurrency()).isEqualTo(2);
        List<RunView> triggered = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            triggered.add(p.lifecycle.trigger(OWNER, job.id()));
        }
        await().atMost(Duration.ofSeconds(90))
                .until(() -> triggered.stream()
                        .allMatch(
                                r -> Fixture.run(p, job.id(), r.runId()).state().terminal()));
        assertThat(triggered)
                .extracting(r -> Fixture.run(p, job.id(), r.runId()).state())
                .containsOnly(RunState.SUCCEEDED);
        List<Span> spans = spans(witness);
        assertThat(spans).hasSize(5);
        assertThat(mostAtOnce(spans)).as("%s", spans).isEqualTo(2);
    }

    @Test
    void allowLetsBothRunAtOnce() {
        Path witness = Fixture.witness(tmp);
        List<RunView> runs = twoRunsAtOnce("allow", witness);

        List<Span> spans = bothSucceeded(runs, witness);
        assertThat(spans.get(0).overlaps(spans.get(1))).as("%s %s", spans, runs).isTrue();
    }

    @Test
    void forbidSkipsTheSecondAndNamesTheRunningOne() {
        Path witness = Fixture.witness(tmp);
        List<RunView> runs = twoRunsAtOnce("forbid", witness);

        assertThat(runs).extracting(RunView::state).containsExactlyInAnyOrder("SUCCEEDED", "SKIPPED");
        RunView ran = runs.stream()
                .filter(r -> r.state().equals("SUCCEEDED"))
                .findFirst()
                .orElseThrow();
        RunView skipped = runs.stream()
                .filter(r -> r.state().equals("SKIPPED"))
                .findFirst()
                .orElseThrow();
        assertThat(skipped.error())
                .isEqualTo("run " + ran.runId() + " of this job was still running (overlap: forbid)");
        assertThat(skipped.attempt()).as("never started").isZero();
        assertThat(spans(witness)).extracting(Span::runId).containsExactly(ran.runId());
    }

    @Test
    void queueRunsTheSecondAfterTheFirstHasFinished() {
        Path witness = Fixture.witness(tmp);
        List<RunView> runs = twoRunsAtOnce("queue", witness);

        List<Span> spans = bothSucceeded(runs, witness);
        assertThat(spans.get(0).overlaps(spans.get(1))).as("%s", spans).isFalse();
        assertThat(runs).extracting(RunView::attempt).containsOnly(1);
    }

    @Test
    void aRunNotStartedWithinMaxRunAgeIsDead() {
        // Created and dispatched two days ago (a scheduler clock that far back), received by an executor now.
        Settings settings = TestStack.isolatedSettings().build();
        Instant t0 = Instant.now().minus(Duration.ofDays(2)).truncatedTo(ChronoUnit.SECONDS);
        Punctual past = Fixture.stack(settings, new SettableClock(t0));
        Job job = Fixture.insertJob(past, Fixture.once(t0), t0, t0, 3, FiringPolicy.DEFAULT);
        past.dispatcher.dispatch(List.of(Fixture.run(past, job.id(), job.pendingRunId())), t0);
        assertThat(Fixture.run(past, job.id(), job.pendingRunId()).state()).isEqualTo(RunState.QUEUED);

        Punctual now = Fixture.stack(settings, Clock.systemUTC());
        executors.start(now, "ex-late", tmp.resolve("ex-late"));

        Run dead = await().atMost(Duration.ofSeconds(20))
                .until(() -> Fixture.run(now, job.id(), job.pendingRunId()), r -> r.state() == RunState.DEAD);
        assertThat(dead.attempt()).as("never started").isZero();
        assertThat(dead.error()).isEqualTo("not started within maxRunAge PT24H of becoming due at " + t0);
        assertThat(now.deadLetters.list(OWNER, "DEAD", null, null).items())
                .extracting(RunView::runId)
                .containsExactly(job.pendingRunId());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Fixture.queueCounts(now).total() == 0);
    }
}
