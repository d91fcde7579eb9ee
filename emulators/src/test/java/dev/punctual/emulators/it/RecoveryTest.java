package dev.punctual.emulators.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.job.Job;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.sweep.Sweeper;
import dev.punctual.core.time.SettableClock;
import dev.punctual.emulators.TestStack;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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
        assertThat(sweep().resent()).as("not yet: the message may still be on its way").isZero();

        clock.advance(p.settings.lookahead().plus(REQUEUE));
        Sweeper.SweepReport r = sweep();
        assertThat(r.resent()).isEqualTo(1);
        assertThat(Fixture.receiveVisible(p)).extracting(RunMessage::runId).containsExactly(job.pendingRunId());
        assertThat(sweep().resent()).as("once per timeout, not every sweep").isZero();
    }

    @Test
    void aRunWhoseExecutorDiedIsSentAgainAndTheNextClaimTakesOverWithTheNextAttempt() {
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(1), now);
        p.sweeper.sweep();
        loseEveryMessage();
        clock.advance(Duration.ofSeconds(2));
        Instant t = clock.instant();
        assertThat(p.tx.write(List.of(p.jobs.conditionNotDeleted(job.id()),
                p.runs.claim(job.id(), job.pendingRunId(), "dead-executor", t.plusSeconds(60), t))).won()).isTrue();

        // The lease would have been renewed every 20 s by a live executor; this one never renews it.
        clock.advance(p.settings.lookahead().plus(REQUEUE).plusMinutes(1));
        assertThat(sweep().resent()).isEqualTo(1);
        assertThat(Fixture.receiveVisible(p)).extracting(RunMessage::runId).containsExactly(job.pendingRunId());

        Instant later = clock.instant();
        assertThat(p.tx.write(List.of(p.jobs.conditionNotDeleted(job.id()),
                p.runs.claim(job.id(), job.pendingRunId(), "rescuer", later.plusSeconds(60), later))).won()).isTrue();
        Run run = Fixture.run(p, job.id(), job.pendingRunId());
        assertThat(run.attempt()).isEqualTo(2);
        assertThat(run.leaseOwner()).isEqualTo("rescuer");
        assertThat(p.runs.heartbeat(job.id(), run.runId(), 1, "dead-executor", later.plusSeconds(60), later))
                .as("the dead executor's attempt is fenced off").isFalse();
    }

    @Test
    void aRunWithALiveLeaseIsLookedAtAgainLaterAndNotResent() {
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(1), now);
        p.sweeper.sweep();
        loseEveryMessage();
        clock.advance(p.settings.lookahead().plus(REQUEUE).plusMinutes(1));
        Instant t = clock.instant();
        // Claimed (and, we pretend, heartbeating) just before the requeue time came.
        assertThat(p.tx.write(List.of(p.jobs.conditionNotDeleted(job.id()),
                p.runs.claim(job.id(), job.pendingRunId(), "alive", t.plusSeconds(60), t))).won()).isTrue();

        assertThat(sweep().resent()).isZero();
        assertThat(Fixture.queueCounts(p).visible()).isZero();
        Instant next = t.plusSeconds(60).plus(REQUEUE);
        assertThat(p.runs.attentionIn(p.buckets.partitionFor(next, job.id(), job.pendingRunId()), next))
                .extracting(a -> a.run().runId()).containsExactly(job.pendingRunId());
    }

    @Test
    void aFinishedRunLeavesTheIndex() {
        Job job = Fixture.insertOnceJob(p, now.plusSeconds(1), now);
        p.sweeper.sweep();
        clock.advance(Duration.ofSeconds(2));
        Instant t = clock.instant();
        p.tx.write(List.of(p.jobs.conditionNotDeleted(job.id()),
                p.runs.claim(job.id(), job.pendingRunId(), "ex", t.plusSeconds(60), t)));
        assertThat(p.runs.finish(job.id(), job.pendingRunId(), 1, "ex", RunState.SUCCEEDED, 0, null, null, t,
                t.plus(Duration.ofDays(1)))).isTrue();
        assertThat(Fixture.rawRun(p, job.id(), job.pendingRunId()))
                .doesNotContainKeys(Resources.DUE_SHARD, Resources.DUE_SORT);
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
