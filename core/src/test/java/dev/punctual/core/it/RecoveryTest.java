package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.exec.RunWorker;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.job.Job;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.sweep.Sweeper;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import dev.punctual.core.time.TimeBuckets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stuck work comes back: a QUEUED run whose message was lost, a RUNNING run whose executor died (and whose message
 * is gone too) are sent again by the sweeper after the requeue timeout; live and finished runs are left alone.
 * Time is moved with a settable clock instead of waiting.
 */
class RecoveryTest {
    private static final Duration REQUEUE = Duration.ofMinutes(10);
    private Instant now;
    private SettableClock clock;
    private Punctual p;

    @BeforeEach
    void setUp() {
        now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        clock = new SettableClock(now);
        p = Fixture.stack(TestStack.isolatedSettings().requeueAfter(REQUEUE).build(), clock);
        p.watermarks.advance(now.minus(Duration.ofMinutes(5)).truncatedTo(ChronoUnit.MINUTES), now);
    }

    @Test
    void aQueuedRunWhoseMessageWasLostIsSentAgainAfterTheRequeueTimeout() {
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(1), now);
        assertThat(p.sweeper.sweep().marked()).isEqualTo(1);
        loseEveryMessage();

        clock.advance(Duration.ofMinutes(5));
        assertThat(sweep().resent())
                .as("not yet: the message may still be on its way")
                .isZero();

        clock.advance(p.settings.sweep().lookahead().plus(REQUEUE));
        Sweeper.SweepReport r = sweep();
        assertThat(r.resent()).isEqualTo(1);
        // Waited a requeue timeout past its due time: sent again one lane up (aging), normal to high.
        assertThat(Fixture.receiveVisible(p)).isEmpty();
        assertThat(Fixture.receiveVisible(p, Priority.HIGH))
                .extracting(RunMessage::runId)
                .containsExactly(job.pendingRunId());
        assertThat(sweep().resent()).as("once per timeout, not every sweep").isZero();
    }

    @Test
    void aRunWhoseExecutorDiedIsSentAgainAndTheNextClaimTakesOverWithTheNextAttempt() {
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(1), now);
        claimByAnExecutorThatDies(job);

        // The lease would have been renewed every 20 s by a live executor; this one never renews it.
        clock.advance(p.settings.sweep().lookahead().plus(REQUEUE).plusMinutes(1));
        assertThat(sweep().resent()).isEqualTo(1);
        assertThat(Fixture.receiveVisible(p, Priority.HIGH))
                .extracting(RunMessage::runId)
                .containsExactly(job.pendingRunId());

        Instant later = clock.instant();
        assertThat(Fixture.claim(p, job, "rescuer", later)).isTrue();
        Run run = Fixture.run(p, job.id(), job.pendingRunId());
        assertThat(run.attempt()).isEqualTo(2);
        assertThat(run.leaseOwner()).isEqualTo("rescuer");
        assertThat(p.runs.apply(Change.of(Transition.HEARTBEAT, job.id(), run.runId(), later)
                                .withAttempt(1)
                                .withLease("dead-executor", later.plusSeconds(60)))
                        .won())
                .as("the dead executor's attempt is fenced off")
                .isFalse();
    }

    /** Sends the job's pending run, loses its message, and claims it as an executor that then dies. */
    private void claimByAnExecutorThatDies(Job job) {
        p.sweeper.sweep();
        loseEveryMessage();
        clock.advance(Duration.ofSeconds(2));
        Instant t = clock.instant();
        assertThat(Fixture.claim(p, job, "dead-executor", t)).isTrue();
        // It got as far as starting the binary (an attempt that never launched is given back: UnlaunchedAttemptTest).
        assertThat(p.runs.apply(Change.of(Transition.LAUNCH, job.id(), job.pendingRunId(), t)
                                .withAttempt(1)
                                .withLease("dead-executor", t.plusSeconds(60)))
                        .won())
                .isTrue();
    }

    /** What a fresh executor makes of the one message in the queue. */
    private RunWorker.Outcome handleTheOneMessage(Path work) throws InterruptedException {
        RunWorker worker = p.worker("rescuer", work.resolve("runs"), Executors.newSingleThreadScheduledExecutor());
        try {
            // Sent again after a requeue timeout: one lane up, in high.
            var messages = p.queues.receive(Priority.HIGH, 10, 1, 30);
            assertThat(messages).hasSize(1);
            return worker.handle(messages.get(0));
        } finally {
            worker.close();
        }
    }

    @Test
    void aRunWhoseExecutorDiedOnItsLastAttemptEndsDeadAndNeverStartsAgain(@TempDir Path work) throws Exception {
        // One attempt allowed; its executor claims it and dies (never renews the lease, records nothing).
        Job job = Fixture.insertJob(p, Fixture.once(now.plusSeconds(1)), now.plusSeconds(1), now, 1);
        claimByAnExecutorThatDies(job);
        clock.advance(p.settings.sweep().lookahead().plus(REQUEUE).plusMinutes(1));
        assertThat(sweep().resent()).isEqualTo(1);

        // The message the sweeper sent brings it to an executor, which must not start attempt 2 of 1.
        Instant later = clock.instant();
        assertThat(Fixture.claim(p, job, "rescuer", later))
                .as("no claim past maxAttempts")
                .isFalse();
        assertThat(handleTheOneMessage(work)).isEqualTo(RunWorker.Outcome.DEAD);

        Run run = Fixture.run(p, job.id(), job.pendingRunId());
        assertThat(run.state()).isEqualTo(RunState.DEAD);
        assertThat(run.attempt()).isEqualTo(1);
        assertThat(run.error())
                .isEqualTo("attempt 1 of 1 ended without an outcome (its executor dead-executor "
                        + "stopped: crashed, froze or lost its lease), and no attempt is left");
        assertThat(p.deadLetters.list(Fixture.OWNER, "DEAD", null, null).items())
                .extracting(v -> v.runId())
                .containsExactly(job.pendingRunId());
        assertThat(Fixture.queueCounts(p).total()).as("its message is gone").isZero();
    }

    @Test
    void aDeletedJobsRunWhoseExecutorDiedIsCancelledNotLeftRunning(@TempDir Path work) throws Exception {
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(1), now);
        claimByAnExecutorThatDies(job);
        p.deletions.delete(Fixture.OWNER, job.id());
        clock.advance(p.settings.sweep().lookahead().plus(REQUEUE).plusMinutes(1));
        assertThat(sweep().resent()).isEqualTo(1);

        assertThat(handleTheOneMessage(work)).isEqualTo(RunWorker.Outcome.CANCELLED);
        Run run = Fixture.run(p, job.id(), job.pendingRunId());
        assertThat(run.state()).isEqualTo(RunState.CANCELLED);
        assertThat(run.error()).isEqualTo("job deleted");
        assertThat(Fixture.queueCounts(p).total()).isZero();
    }

    @Test
    void aRunWithALiveLeaseIsLookedAtAgainLaterAndNotResent() {
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(1), now);
        p.sweeper.sweep();
        loseEveryMessage();
        clock.advance(p.settings.sweep().lookahead().plus(REQUEUE).plusMinutes(1));
        Instant t = clock.instant();
        // Claimed (and, we pretend, heartbeating) just before the requeue time came.
        assertThat(Fixture.claim(p, job, "alive", t)).isTrue();

        assertThat(sweep().resent()).isZero();
        assertThat(Fixture.queueCounts(p).visible()).isZero();
        Instant next = t.plusSeconds(60).plus(REQUEUE);
        assertThat(p.runs.attentionIn(p.buckets.partitionFor(next, job.id(), job.pendingRunId()), next))
                .extracting(a -> a.run().runId())
                .containsExactly(job.pendingRunId());
    }

    @Test
    void aFinishedRunLeavesTheIndex() {
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(1), now);
        p.sweeper.sweep();
        clock.advance(Duration.ofSeconds(2));
        Instant t = clock.instant();
        Fixture.claim(p, job, "ex", t);
        assertThat(p.runs.apply(Change.of(Transition.SUCCEED, job.id(), job.pendingRunId(), t)
                                .withAttempt(1)
                                .withExecutor("ex")
                                .withExitCode(0))
                        .won())
                .isTrue();
        assertThat(Fixture.rawRun(p, job.id(), job.pendingRunId()))
                .doesNotContainKeys(Resources.DUE_SHARD, Resources.DUE_SORT);
    }

    /**
     * The dispatcher sent a recurring job's pending run and crashed before marking it (so before writing the job's
     * next occurrence); an executor claims it straight from SCHEDULED and finishes it before any sweep looks. The
     * finished run must stay in the due index until a sweep has written the successor, or the job would stop.
     */
    @Test
    void aRunFinishedBeforeItsCrashedDispatcherMarkedItStillGetsItsJobsNextOccurrence(@TempDir Path tmp) {
        Punctual real = Fixture.stack(
                TestStack.isolatedSettings()
                        .sweepPeriod(Duration.ofSeconds(1))
                        .lookahead(Duration.ofSeconds(2))
                        .build(),
                Clock.systemUTC());
        String binaryId = Fixture.uploadBinary(real, Fixture.OWNER, Fixture.script("true"));
        // Read after the upload, which may take seconds on a loaded machine: the run must stay beyond the lookahead
        // when the job is created, at least 4 s ahead whatever the clock's millisecond.
        Instant t = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        real.watermarks.advance(TimeBuckets.bucketOf(t), t);
        Instant first = t.plusSeconds(5);
        JobView job = real.jobService.create(
                Fixture.OWNER,
                JobRequest.builder("crashed-dispatch", binaryId, Fixture.interval(Duration.ofHours(1), first))
                        .build());
        String runId = RunIds.forOccurrence(first);
        assertThat(Fixture.run(real, job.id(), runId).state())
                .as("beyond the 2 s lookahead: not sent at creation")
                .isEqualTo(RunState.SCHEDULED);
        // The crashed dispatcher's send, without its mark.
        assertThat(real.queue.sendBatch(List.of(new RunMessage(job.id(), runId, first)), Instant.now()))
                .hasSize(1);

        try (ExecutorPool pool = real.startExecutor("ex", tmp.resolve("ex"), 1)) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> Fixture.run(real, job.id(), runId).state() == RunState.SUCCEEDED);
        }
        assertThat(Fixture.rawRun(real, job.id(), runId))
                .as("still in the due index")
                .containsKeys(Resources.DUE_SHARD, Resources.DUE_SORT);
        assertThat(real.jobs.get(job.id()).orElseThrow().pendingRunId()).isEqualTo(runId);

        real.sweeper.sweep();

        assertThat(real.jobs.get(job.id()).orElseThrow().pendingRunId())
                .isEqualTo(RunIds.forOccurrence(first.plus(Duration.ofHours(1))));
        assertThat(Fixture.rawRun(real, job.id(), runId)).doesNotContainKeys(Resources.DUE_SHARD, Resources.DUE_SORT);
    }

    private Sweeper.SweepReport sweep() {
        return p.sweeper.sweep();
    }

    /** As if every message were lost: received and deleted by nobody who runs them. */
    private void loseEveryMessage() {
        // Delayed messages become visible only at their due second: wait for them by polling, not sleeping.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            p.queue.receive(10, 1, 1).forEach(m -> p.queue.delete(m.receiptHandle()));
            Fixture.QueueCounts c = Fixture.queueCounts(p);
            return c.visible() + c.delayed() + c.inFlight() == 0;
        });
    }
}
