package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.dispatch.Dispatcher;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Metering;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.store.TableDispatchStore;
import dev.punctual.core.sweep.Sweeper;
import dev.punctual.core.sweep.WatchChecks;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import dev.punctual.core.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The sweeper on the emulators. SQS delays are real time, computed from the scheduler's clock, so tests whose
 * messages must be received keep that clock at real time and the runs due in the past or within a few seconds.
 */
class SweeperTest {
    private SettableClock clock;
    private Settings settings;

    private static Instant realNow() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS);
    }

    /** A scheduler with the default settings, its clock (in {@link #clock}) set at {@code now}. */
    private Punctual stackAt(Instant now) {
        return stackAt(now, TestStack.isolatedSettings());
    }

    private Punctual stackAt(Instant now, Settings.Builder with) {
        clock = new SettableClock(now);
        settings = with.build();
        return Fixture.stack(settings, clock);
    }

    /** Sets the watermark at the minute {@code back} before {@code now}, as an earlier sweep would; that minute. */
    private static Instant watermarkBack(Punctual p, Instant now, Duration back) {
        Instant minute = TimeBuckets.bucketOf(now.minus(back));
        assertThat(p.watermarks.advance(minute, now)).isTrue();
        return minute;
    }

    /** Every shard's watermark, by shard. */
    private static Map<Integer, Instant> marks(Punctual p) {
        return p.watermarks
                .get(IntStream.range(0, p.buckets.shards()).boxed().toList())
                .from();
    }

    private static Instant lowestMark(Punctual p) {
        return marks(p).values().stream().min(Comparator.naturalOrder()).orElseThrow();
    }

    private static void assertEveryShardsMark(Punctual p, Instant at) {
        Map<Integer, Instant> marks = marks(p);
        assertThat(marks).hasSize(p.buckets.shards());
        assertThat(marks.values()).allSatisfy(m -> assertThat(m).isEqualTo(at));
    }

    @Test
    void aRunDueInThirtySecondsIsSentDelayedAndMarkedQueuedAndTheWatermarkStopsAtNowMinusSettle() {
        Instant now = realNow();
        Punctual p = stackAt(now);
        Instant earlier = watermarkBack(p, now, Duration.ofMinutes(5));
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(30), now);

        Sweeper.SweepReport report = p.sweeper.sweep();

        assertThat(report.from()).isEqualTo(earlier);
        assertThat(report.due()).isEqualTo(1);
        assertThat(report.sent()).isEqualTo(1);
        assertThat(report.marked()).isEqualTo(1);
        assertThat(report.failed()).isZero();
        assertThat(Fixture.run(p, job.id(), job.pendingRunId()).state()).isEqualTo(RunState.QUEUED);
        assertThat(p.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        Instant settled = TimeBuckets.bucketOf(now.minus(settings.sweep().settle()));
        assertThat(report.watermark()).isEqualTo(settled);
        assertEveryShardsMark(p, settled);
        // Delayed to its due second: not receivable now.
        Fixture.QueueCounts counts = Fixture.queueCounts(p);
        assertThat(counts.delayed()).isEqualTo(1);
        assertThat(counts.visible()).isZero();
        assertThat(Fixture.receiveVisible(p)).isEmpty();

        // A second sweep at the same instant finds nothing and leaves the watermark where it is.
        Sweeper.SweepReport again = p.sweeper.sweep();
        assertThat(again.due()).isZero();
        assertThat(again.sent()).isZero();
        assertEveryShardsMark(p, settled);
        assertThat(Fixture.queueCounts(p).total()).isEqualTo(1);
    }

    /**
     * The sweep reads each job before it sends its run, and gives the message the job's firing policy as a hint (as a
     * first run's message sent at creation has it): the executor then claims with no read of its own. A job whose
     * runs must not overlap gets none: its claim is a transaction that reads it.
     */
    @Test
    void aSweptRunsMessageCarriesItsJobsFiringPolicyAsAHintUnlessItsRunsMustNotOverlap() {
        Instant now = realNow();
        Punctual p = stackAt(now);
        watermarkBack(p, now, Duration.ofMinutes(5));
        Job allows = Fixture.insertJob(
                p, Fixture.once(now), now, now, 3, new FiringPolicy(null, null, Overlap.ALLOW, Duration.ofHours(2)));
        Job forbids = Fixture.insertJob(
                p, Fixture.once(now), now, now, 3, new FiringPolicy(null, null, Overlap.FORBID, null));

        assertThat(p.sweeper.sweep().sent()).isEqualTo(2);

        List<RunMessage> got = Fixture.receiveVisible(p);
        assertThat(got)
                .extracting(RunMessage::jobId, RunMessage::hint)
                .containsExactlyInAnyOrder(
                        tuple(allows.id(), new RunMessage.Hint(Duration.ofHours(2))), tuple(forbids.id(), null));
    }

    @Test
    void theFirstSweepWithoutAWatermarkStartsAtNowMinusSettle() {
        Instant now = realNow();
        Punctual p = stackAt(now);
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(5), now);

        Sweeper.SweepReport report = p.sweeper.sweep();

        Instant settled = TimeBuckets.bucketOf(now.minus(settings.sweep().settle()));
        assertThat(report.from()).isEqualTo(settled);
        assertThat(report.horizon()).isEqualTo(now.plus(settings.sweep().lookahead()));
        assertThat(report.sent()).isEqualTo(1);
        assertThat(Fixture.run(p, job.id(), job.pendingRunId()).state()).isEqualTo(RunState.QUEUED);
        assertThat(p.watermarks.get())
                .as("the mark all shards once shared is not written")
                .isEmpty();
        assertEveryShardsMark(p, settled);
        assertThat(report.watermark()).isEqualTo(settled);
    }

    @Test
    void aFreshDeploymentThatWasSweptOnceCatchesUpOnAnOutageToo() {
        Instant realNow = realNow();
        Instant t0 = realNow.minus(Duration.ofMinutes(10));
        Punctual p = stackAt(t0);
        p.sweeper.sweep();
        clock.advance(Duration.ofMinutes(1));
        p.sweeper.sweep();
        Job inGap = Fixture.insertOnceJob(p, t0.plus(Duration.ofMinutes(5)), t0);
        clock.set(realNow);

        Sweeper.SweepReport report = p.sweeper.sweep();

        assertThat(report.from()).isEqualTo(TimeBuckets.bucketOf(t0));
        assertThat(report.sent()).isEqualTo(1);
        assertThat(Fixture.run(p, inGap.id(), inGap.pendingRunId()).state()).isEqualTo(RunState.QUEUED);
    }

    @Test
    void oneSweepOfATenSecondIntervalQueuesEveryOccurrenceInTheLookaheadOnceAndInOrder() {
        Instant start = realNow();
        // Each reading of the clock moves it on by a millisecond, so queuedAt shows the order of the writes.
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), SettableClock.ticking(start));
        Job job = Fixture.insertJob(p, Fixture.interval(Duration.ofSeconds(10), start), start, start, 3);

        Sweeper.SweepReport report = p.sweeper.sweep();

        Instant horizon = report.horizon();
        List<Instant> expected = Fixture.every(Duration.ofSeconds(10), start, horizon);
        assertThat(expected).hasSize(13);
        assertThat(report.sent()).isEqualTo(13);
        assertThat(report.marked()).isEqualTo(13);
        assertThat(report.materialized()).isEqualTo(13);

        List<Run> runs = Fixture.runsOf(p, job.id());
        List<Run> queued =
                runs.stream().filter(r -> r.state() == RunState.QUEUED).toList();
        List<Run> scheduled =
                runs.stream().filter(r -> r.state() == RunState.SCHEDULED).toList();
        assertThat(runs).hasSize(14);
        assertThat(queued).extracting(Run::scheduledAt).containsExactlyElementsOf(expected);
        List<Instant> order = queued.stream()
                .map(r -> Items.instant(Fixture.rawRun(p, job.id(), r.runId()), "queuedAt"))
                .toList();
        assertThat(order)
                .as("queued in schedule order")
                .isSortedAccordingTo(Instant::compareTo)
                .doesNotHaveDuplicates();

        assertThat(scheduled).hasSize(1);
        Run pending = scheduled.get(0);
        assertThat(pending.scheduledAt())
                .isEqualTo(expected.getLast().plusSeconds(10))
                .isAfter(horizon);
        Job after = p.jobs.get(job.id()).orElseThrow();
        assertThat(after.pendingRunId()).isEqualTo(pending.runId());
        assertThat(after.nextRunAt()).isEqualTo(pending.scheduledAt());

        // One message per occurrence; the first is due now, the rest are delayed.
        Fixture.QueueCounts counts = Fixture.queueCounts(p);
        assertThat(counts.total()).isEqualTo(13);
        assertThat(counts.delayed()).isGreaterThanOrEqualTo(11);

        // Sweeping again sends nothing new.
        Sweeper.SweepReport again = p.sweeper.sweep();
        assertThat(again.sent()).isZero();
        assertThat(Fixture.runsOf(p, job.id())).hasSize(14);
        assertThat(Fixture.queueCounts(p).total()).isEqualTo(13);
    }

    @Test
    void aTenSecondIntervalsOccurrencesInOneSweepReadTheirJobOnceAndAreMarkedOutsideTheTransactions() {
        Metering.enable();
        Instant now = realNow();
        Punctual p = stackAt(now);
        Job job = Fixture.insertJob(p, Fixture.interval(Duration.ofSeconds(10), now), now, now, 3);
        String jobs = p.resources.jobs().name();
        String runs = p.resources.runs().name();
        Map<String, Double> before = Metering.snapshot();

        Sweeper.SweepReport report = p.sweeper.sweep();

        assertThat(report.sent()).isEqualTo(13);
        assertThat(report.marked()).isEqualTo(13);
        assertThat(report.materialized()).isEqualTo(13);
        Map<String, Double> after = Metering.snapshot();
        Function<String, Double> spent = key -> after.getOrDefault(key, 0.0) - before.getOrDefault(key, 0.0);
        assertThat(spent.apply("rcu-by:BatchGetItem:" + jobs))
                .as("one strong read of the job, read with the sweep's other jobs; its next twelve occurrences go"
                        + " from what the sweep wrote")
                .isEqualTo(1.0);
        assertThat(spent.apply("rcu-by:GetItem:" + jobs))
                .as("no read of the job on its own")
                .isZero();
        // Each occurrence: its successor put in a transaction with the job (twice a plain write's units), its mark
        // a plain update. Had the mark been in the transaction, the updates would be 0 and the transactions' share
        // on the runs table twice as large.
        double puts = spent.apply("wcu-by:TransactWriteItems:" + runs);
        double marks = spent.apply("wcu-by:UpdateItem:" + runs);
        assertThat(marks).as("13 marks of a small run, one unit each").isEqualTo(13.0);
        assertThat(puts).as("13 successors, two units each in a transaction").isEqualTo(26.0);
        assertThat(spent.apply("wcu-by:TransactWriteItems:" + jobs)).isEqualTo(26.0);
        Job moved = p.jobs.get(job.id()).orElseThrow();
        assertThat(moved.version()).isEqualTo(job.version());
        assertThat(Fixture.run(p, job.id(), moved.pendingRunId()).state()).isEqualTo(RunState.SCHEDULED);
    }

    @Test
    void aRunWhoseDispatchStoppedBetweenTheJobsMoveAndTheMarkIsSentAgainAndOnlyMarked() {
        Instant now = realNow();
        Punctual p = stackAt(now);
        Instant first = now.plusSeconds(30);
        Job job = Fixture.insertJob(p, Fixture.interval(Duration.ofMinutes(10), first), first, now, 3);
        // What a dispatcher that sent the run and wrote its transaction, then stopped, leaves behind.
        Run next = p.planner.plan(job, first.plus(Duration.ofMinutes(10)), now);
        assertThat(p.tx.write(List.of(
                                p.jobs.advancePending(
                                        job.id(),
                                        job.version(),
                                        job.pendingRunId(),
                                        next.runId(),
                                        next.scheduledAt(),
                                        now),
                                p.runs.create(Change.of(Transition.SCHEDULE_OVER_CANCELLED, next, now))))
                        .won())
                .isTrue();

        Sweeper.SweepReport report = p.sweeper.sweep();

        assertThat(report.sent())
                .as("sent again: the claim lets one of the two messages run it")
                .isEqualTo(1);
        assertThat(report.marked()).isEqualTo(1);
        assertThat(report.materialized()).as("its successor is already written").isZero();
        assertThat(Fixture.run(p, job.id(), job.pendingRunId()).state()).isEqualTo(RunState.QUEUED);
        assertThat(p.jobs.get(job.id()).orElseThrow().pendingRunId()).isEqualTo(next.runId());
        assertThat(Fixture.runsOf(p, job.id()))
                .extracting(Run::runId, Run::state)
                .containsExactlyInAnyOrder(
                        tuple(job.pendingRunId(), RunState.QUEUED), tuple(next.runId(), RunState.SCHEDULED));
    }

    @Test
    void twoSweepersRacingQueueEveryRunExactlyOnceAndKeepOnePendingRunPerJob() throws Exception {
        Instant now = realNow();
        // A short lookahead: everything the sweep sends is due in the past or within two seconds, so it can be
        // received at once.
        Punctual a = stackAt(
                now,
                TestStack.isolatedSettings().sweepPeriod(Duration.ofSeconds(1)).lookahead(Duration.ofSeconds(2)));
        Punctual b = Fixture.stack(settings, clock);
        watermarkBack(a, now, Duration.ofMinutes(10));

        List<Job> recurring = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Instant start = now.minus(Duration.ofMinutes(5)).plusSeconds(i);
            recurring.add(Fixture.insertJob(a, Fixture.interval(Duration.ofSeconds(20), start), start, now, 3));
        }
        List<Job> onceJobs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            onceJobs.add(Fixture.insertOnceJob(a, now.minusSeconds(13L * i), now));
        }

        CountDownLatch go = new CountDownLatch(1);
        List<Sweeper.SweepReport> reports = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            List<Future<Sweeper.SweepReport>> f = new ArrayList<>();
            for (Punctual sweeperStack : List.of(a, b)) {
                f.add(threads.submit(() -> {
                    go.await();
                    return sweeperStack.sweeper.sweep();
                }));
            }
            go.countDown();
            for (Future<Sweeper.SweepReport> r : f) {
                reports.add(r.get());
            }
        }

        Instant horizon = now.plus(settings.sweep().lookahead());
        Set<String> expectedKeys = new HashSet<>();
        int expectedMaterialized = 0;
        for (Job job : recurring) {
            List<Run> runs = Fixture.runsOf(a, job.id());
            Instant start = job.nextRunAt();
            List<Instant> due = Fixture.every(Duration.ofSeconds(20), start, horizon);
            Instant next = due.getLast().plusSeconds(20);
            assertThat(runs.stream().filter(r -> r.state() == RunState.QUEUED).map(Run::scheduledAt))
                    .as("job %s: every occurrence up to the horizon queued, no gap, no extra", job.id())
                    .containsExactlyElementsOf(due);
            List<Run> pending =
                    runs.stream().filter(r -> r.state() == RunState.SCHEDULED).toList();
            assertThat(pending).extracting(Run::scheduledAt).containsExactly(next);
            assertThat(runs).hasSize(due.size() + 1);
            Job after = a.jobs.get(job.id()).orElseThrow();
            assertThat(after.pendingRunId()).isEqualTo(pending.get(0).runId());
            assertThat(after.state()).isEqualTo(JobState.ACTIVE);
            due.forEach(t -> expectedKeys.add(job.id() + "/" + RunIds.forOccurrence(t)));
            expectedMaterialized += due.size();
        }
        for (Job job : onceJobs) {
            assertThat(Fixture.runsOf(a, job.id()))
                    .singleElement()
                    .satisfies(r -> assertThat(r.state()).isEqualTo(RunState.QUEUED));
            assertThat(a.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
            expectedKeys.add(job.id() + "/" + job.pendingRunId());
        }
        int marked = reports.stream().mapToInt(Sweeper.SweepReport::marked).sum();
        int materialized =
                reports.stream().mapToInt(Sweeper.SweepReport::materialized).sum();
        assertThat(marked).as("each run marked QUEUED by exactly one sweeper").isEqualTo(expectedKeys.size());
        assertThat(materialized)
                .as("each next occurrence written by exactly one sweeper")
                .isEqualTo(expectedMaterialized);
        assertThat(reports).allSatisfy(r -> assertThat(r.failed()).isZero());

        // Every run has at least one message (duplicates are allowed), and no message names anything else.
        Set<String> received = new HashSet<>();
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    for (RunMessage m : Fixture.receiveVisible(a)) {
                        received.add(m.jobId() + "/" + m.runId());
                    }
                    assertThat(received).containsExactlyInAnyOrderElementsOf(expectedKeys);
                });
    }

    @Test
    void afterTenMinutesWithoutSweepsTheNextSweepCatchesUpOnTheGap() {
        Instant realNow = realNow();
        Instant t0 = realNow.minus(Duration.ofMinutes(10));
        Punctual p = stackAt(t0);
        watermarkBack(p, t0, Duration.ofMinutes(5));
        p.sweeper.sweep();
        Instant lastWatermark = lowestMark(p);
        assertThat(lastWatermark)
                .isEqualTo(TimeBuckets.bucketOf(t0.minus(settings.sweep().settle())));

        // Runs due in the gap, beyond what that sweep could see.
        List<Job> gap = List.of(
                Fixture.insertOnceJob(p, t0.plus(Duration.ofMinutes(3)), t0),
                Fixture.insertOnceJob(p, t0.plus(Duration.ofMinutes(5)).plusSeconds(17), t0),
                Fixture.insertOnceJob(p, t0.plus(Duration.ofMinutes(8)).plusSeconds(42), t0));
        // The sweeper is off for ten minutes.
        clock.set(realNow);

        Sweeper.SweepReport report = p.sweeper.sweep();

        assertThat(report.from()).isEqualTo(lastWatermark);
        assertThat(report.due()).isEqualTo(3);
        assertThat(report.sent()).isEqualTo(3);
        assertThat(gap)
                .allSatisfy(
                        j -> assertThat(Fixture.run(p, j.id(), j.pendingRunId()).state())
                                .isEqualTo(RunState.QUEUED));
        assertEveryShardsMark(
                p, TimeBuckets.bucketOf(realNow.minus(settings.sweep().settle())));
        // Overdue: sent without delay.
        Set<String> got = new HashSet<>();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Fixture.receiveVisible(p).forEach(m -> got.add(m.jobId()));
            assertThat(got)
                    .containsExactlyInAnyOrderElementsOf(
                            gap.stream().map(Job::id).toList());
        });
    }

    @Test
    void runsWhoseSendFailedStayScheduledBelowTheWatermarkAndALaterSweepSendsThem() {
        Instant now = realNow();
        Punctual p = stackAt(now);
        Instant from = watermarkBack(p, now, Duration.ofMinutes(10));
        Job overdue = Fixture.insertOnceJob(p, now.minus(Duration.ofMinutes(4)).plusSeconds(3), now);
        Job recurring = Fixture.insertJob(
                p,
                Fixture.interval(Duration.ofMinutes(1), now.minus(Duration.ofMinutes(3))),
                now.minus(Duration.ofMinutes(3)),
                now,
                3);

        RunQueue broken = new RunQueue(
                Fixture.sqs(), p.resources.runQueue(), TestStack.aws().sqsEndpoint() + "/000000000000/nope");
        Dispatcher failing = new Dispatcher(
                new TableDispatchStore(p.jobs, p.runs, p.tx),
                broken,
                p.schedules,
                clock,
                p.planner,
                p.notices,
                settings.sweep().dispatchConcurrency(),
                Duration.ZERO);
        Sweeper badSweeper = new Sweeper(
                p.runs,
                p.watermarks,
                failing,
                p.buckets,
                settings.sweep(),
                clock,
                List.of(),
                null,
                Meters.inMemory(),
                new WatchChecks(p.jobs, p.runs, p.watches, p.schedules, p.notices));

        Sweeper.SweepReport bad = badSweeper.sweep();

        assertThat(bad.due()).isEqualTo(2);
        assertThat(bad.sent()).isZero();
        assertThat(bad.failed()).isEqualTo(2);
        assertThat(Fixture.run(p, overdue.id(), overdue.pendingRunId()).state()).isEqualTo(RunState.SCHEDULED);
        assertThat(Fixture.run(p, recurring.id(), recurring.pendingRunId()).state())
                .isEqualTo(RunState.SCHEDULED);
        assertThat(Fixture.runsOf(p, recurring.id()))
                .as("no next occurrence without a send")
                .hasSize(1);
        Instant watermark = lowestMark(p);
        assertThat(watermark)
                .as("held at the oldest failed run's bucket")
                .isEqualTo(TimeBuckets.bucketOf(overdue.nextRunAt()));
        assertThat(marks(p).get(p.buckets.shardOf(overdue.id(), overdue.pendingRunId())))
                .as("in the failed run's own shard")
                .isEqualTo(watermark);
        assertThat(Fixture.queueCounts(p).total()).isZero();

        clock.advance(Duration.ofSeconds(30));
        Sweeper.SweepReport good = p.sweeper.sweep();

        assertThat(good.from()).isEqualTo(watermark);
        assertThat(good.failed()).isZero();
        assertThat(Fixture.run(p, overdue.id(), overdue.pendingRunId()).state()).isEqualTo(RunState.QUEUED);
        assertThat(Fixture.run(p, recurring.id(), recurring.pendingRunId()).state())
                .isEqualTo(RunState.QUEUED);
        // The overdue occurrences of the interval (every minute since three minutes ago) go out together.
        List<Run> recurringRuns = Fixture.runsOf(p, recurring.id());
        assertThat(recurringRuns.stream()
                        .filter(r -> r.state() == RunState.SCHEDULED)
                        .count())
                .isEqualTo(1);
        assertEveryShardsMark(
                p, TimeBuckets.bucketOf(clock.instant().minus(settings.sweep().settle())));
        Set<String> got = new HashSet<>();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Fixture.receiveVisible(p).forEach(m -> got.add(m.jobId() + "/" + m.runId()));
            assertThat(got)
                    .contains(
                            overdue.id() + "/" + overdue.pendingRunId(),
                            recurring.id() + "/" + recurring.pendingRunId());
        });
    }

    @Test
    void aRunClaimedBeforeItWasMarkedStillGetsItsSuccessor() {
        // The sweep that sent this run crashed before marking it, and an executor claimed it straight from
        // SCHEDULED. A later sweep must still move the job on, or the recurring job would stop here.
        Instant now = realNow();
        Punctual p = stackAt(now);
        Instant first = now.plusSeconds(5);
        Job job = Fixture.insertJob(p, Fixture.interval(Duration.ofMinutes(10), first), first, now, 3);
        // An executor claims only once the message is visible: at (or after) the due instant.
        clock.set(first);
        assertThat(Fixture.claim(p, job, "ex-1", first)).isTrue();

        Sweeper.SweepReport report = p.sweeper.sweep();

        assertThat(report.sent()).as("a claimed run is not sent again").isZero();
        assertThat(report.materialized()).isEqualTo(1);
        Job after = p.jobs.get(job.id()).orElseThrow();
        assertThat(after.pendingRunId()).isNotEqualTo(job.pendingRunId());
        assertThat(after.nextRunAt()).isEqualTo(first.plus(Duration.ofMinutes(10)));
        assertThat(Fixture.run(p, job.id(), after.pendingRunId()).state()).isEqualTo(RunState.SCHEDULED);
        assertThat(Fixture.run(p, job.id(), job.pendingRunId()).state()).isEqualTo(RunState.RUNNING);
        // It stays indexed, now at the time its lease must have been renewed by (the dead-executor backstop).
        assertThat(Fixture.rawRun(p, job.id(), job.pendingRunId())).containsKey(Resources.DUE_SHARD);
        assertThat(p.sweeper.sweep().materialized()).as("exactly once").isZero();
    }
}
