package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import dev.punctual.core.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Every conditional write of the runs table on DynamoDB Local, won and lost. */
class RunRepositoryTest {
    private static final Duration LEASE = Duration.ofSeconds(60);

    private SettableClock clock;
    private Punctual p;
    private Instant now;

    @BeforeEach
    void setUp() {
        now = Instant.parse("2030-01-01T10:00:00Z");
        clock = new SettableClock(now);
        p = Fixture.stack(
                TestStack.isolatedSettings().retention(Duration.ofDays(7)).build(), clock);
    }

    private Job job() {
        // Due now: a claim wins only once its run is due.
        return Fixture.insertOnceJob(p, now, now);
    }

    private Transactions.Outcome claim(Job job, String executor) {
        Instant t = clock.instant();
        return Fixture.claim(p, job, executor, t, LEASE);
    }

    /** A job whose run ex-a claimed and ex-b took over, attempt 2, once ex-a's lease had run out. */
    private Job takenOver() {
        Job job = job();
        assertThat(claim(job, "ex-a").won()).isTrue();
        clock.advance(LEASE.plusSeconds(1));
        assertThat(claim(job, "ex-b").won()).isTrue();
        return job;
    }

    private Run run(Job job) {
        return Fixture.run(p, job.id(), job.pendingRunId());
    }

    private boolean markQueued(Job job) {
        return Fixture.markQueued(p, job, clock.instant());
    }

    /** Applies an executor's outcome; whether it won. */
    private boolean finish(Change outcome) {
        return p.runs.apply(outcome).won();
    }

    /** The API's cancel of the job's pending run (a delete): SCHEDULED only, in a transaction; whether it won. */
    private boolean cancelScheduled(Job job) {
        return p.tx.write(List.of(p.runs.write(Change.of(Transition.CANCEL_SCHEDULED, job.id(), job.pendingRunId(), now)
                        .withError("job deleted"))))
                .won();
    }

    /** The executor's cancel of a run it received for a deleted job; whether it won. */
    private boolean cancelUnstarted(Job job) {
        return p.runs.apply(Change.of(Transition.CANCEL_UNSTARTED, job.id(), job.pendingRunId(), now)
                        .withError("job deleted"))
                .won();
    }

    /** Executor {@code executor}'s renewal at {@code t} of its lease on attempt {@code attempt}; whether it won. */
    private boolean heartbeat(Job job, int attempt, String executor, Instant t) {
        return p.runs.apply(Change.of(Transition.HEARTBEAT, job.id(), job.pendingRunId(), t)
                        .withAttempt(attempt)
                        .withLease(executor, t.plus(LEASE)))
                .won();
    }

    @Test
    void insertScheduledWritesTheRunIntoTheDueIndexAndADuplicateOccurrenceLoses() {
        Job job = job();
        Run r = run(job);
        assertThat(r.state()).isEqualTo(RunState.SCHEDULED);
        assertThat(r.attempt()).isZero();
        Map<String, AttributeValue> raw = Fixture.rawRun(p, job.id(), r.runId());
        assertThat(Items.str(raw, Resources.DUE_SHARD))
                .isEqualTo(p.buckets.partitionFor(r.scheduledAt(), job.id(), r.runId()));

        Run again = Run.scheduled(job.id(), r.runId(), Fixture.OWNER, r.scheduledAt(), 5, now.plusSeconds(1));
        Transactions.Outcome outcome =
                p.tx.write(List.of(p.runs.create(Change.of(Transition.SCHEDULE, again, again.createdAt()))));

        assertThat(outcome.won()).isFalse();
        assertThat(outcome.failed(0)).isTrue();
        assertThat(run(job).maxAttempts()).as("the first write stands").isEqualTo(3);
    }

    @Test
    void markQueuedWinsFromScheduledAndMovesTheIndexEntryToItsRequeueTime() {
        Job job = job();
        assertThat(markQueued(job)).isTrue();

        assertThat(run(job).state()).isEqualTo(RunState.QUEUED);
        Map<String, AttributeValue> raw = Fixture.rawRun(p, job.id(), job.pendingRunId());
        assertThat(raw).containsKey("queuedAt");
        assertThat(p.runs.dueIn(
                        p.buckets.partitionFor(run(job).scheduledAt(), job.id(), job.pendingRunId()),
                        now.plus(Duration.ofHours(1))))
                .isEmpty();
        // Only if its message is lost does anyone look at it again: after the lookahead plus the requeue timeout.
        Instant attention =
                now.plus(p.settings.sweep().lookahead()).plus(p.settings.sweep().requeueAfter());
        assertThat(p.runs.attentionIn(p.buckets.partitionFor(attention, job.id(), job.pendingRunId()), attention))
                .singleElement()
                .satisfies(a -> {
                    assertThat(a.at()).isEqualTo(attention);
                    assertThat(a.run().state()).isEqualTo(RunState.QUEUED);
                });
    }

    @Test
    void markQueuedLosesWhenAlreadyQueued() {
        Job job = job();
        assertThat(markQueued(job)).isTrue();
        clock.advance(Duration.ofSeconds(5));

        assertThat(markQueued(job)).isFalse();
        assertThat(Items.str(Fixture.rawRun(p, job.id(), job.pendingRunId()), "queuedAt"))
                .as("the loser did not touch the item")
                .isEqualTo(now.toString());
    }

    @Test
    void claimWinsFromScheduledWithAttemptOneAndALease() {
        Job job = job();
        assertThat(claim(job, "ex-a").won()).isTrue();

        Run r = run(job);
        assertThat(r.state()).isEqualTo(RunState.RUNNING);
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(r.leaseOwner()).isEqualTo("ex-a");
        assertThat(r.leaseExpiry()).isEqualTo(now.plus(LEASE));
        assertThat(r.startedAt()).as("claimed, not launched yet").isNull();
        // Claimed before anyone marked it: it stays in the due index until a sweep has moved its job on.
        assertThat(Fixture.rawRun(p, job.id(), r.runId())).containsKeys(Resources.DUE_SHARD, Resources.DUE_SORT);
    }

    @Test
    void claimWinsFromQueued() {
        Job job = job();
        assertThat(markQueued(job)).isTrue();

        assertThat(claim(job, "ex-a").won()).isTrue();
        assertThat(run(job).state()).isEqualTo(RunState.RUNNING);
        assertThat(run(job).attempt()).isEqualTo(1);
    }

    @Test
    void claimWinsFromFailedWithTheNextAttemptAndClearsTheLastOutcome() {
        Job job = job();
        assertThat(claim(job, "ex-a").won()).isTrue();
        assertThat(finish(Fixture.outcome(Transition.FAIL, job.id(), job.pendingRunId(), clock.instant(), 1, "ex-a", 3)
                        .withError("exited with code 3")))
                .isTrue();
        assertThat(run(job).state()).isEqualTo(RunState.FAILED);
        clock.advance(Duration.ofSeconds(5));

        assertThat(claim(job, "ex-b").won()).isTrue();

        Run r = run(job);
        assertThat(r.state()).isEqualTo(RunState.RUNNING);
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.leaseOwner()).isEqualTo("ex-b");
        assertThat(r.exitCode()).isNull();
        assertThat(r.error()).isNull();
        assertThat(r.finishedAt()).isNull();
    }

    @Test
    void claimLosesAgainstALiveLeaseAndReturnsTheRunningItem() {
        Job job = job();
        assertThat(claim(job, "ex-a").won()).isTrue();
        clock.advance(LEASE.minusSeconds(1));

        Transactions.Outcome lost = claim(job, "ex-b");

        assertThat(lost.won()).isFalse();
        assertThat(lost.failed(0)).as("the job is fine").isFalse();
        assertThat(lost.failed(1)).isTrue();
        Map<String, AttributeValue> old = lost.oldItem(1);
        assertThat(old).isNotNull();
        assertThat(Items.str(old, "state")).isEqualTo("RUNNING");
        assertThat(Items.str(old, "leaseOwner")).isEqualTo("ex-a");
        assertThat(run(job).attempt()).isEqualTo(1);
        assertThat(run(job).leaseOwner()).isEqualTo("ex-a");
    }

    @Test
    void claimWinsOnceTheLeaseHasExpiredAndBumpsTheAttempt() {
        Job job = job();
        assertThat(claim(job, "ex-a").won()).isTrue();
        clock.advance(LEASE.plusMillis(1));

        assertThat(claim(job, "ex-b").won()).isTrue();

        Run r = run(job);
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.leaseOwner()).isEqualTo("ex-b");
        assertThat(r.leaseExpiry()).isEqualTo(clock.instant().plus(LEASE));
    }

    @Test
    void claimLosesOnADeletedJobAndNamesTheJobCondition() {
        Job job = job();
        assertThat(Fixture.markDeleted(p, job.id(), Fixture.OWNER, job.pendingRunId(), now))
                .isTrue();

        Transactions.Outcome lost = claim(job, "ex-a");

        assertThat(lost.won()).isFalse();
        assertThat(lost.failed(0)).isTrue();
        assertThat(lost.failed(1)).isFalse();
        assertThat(run(job).state()).isEqualTo(RunState.SCHEDULED);
        assertThat(run(job).attempt()).isZero();
    }

    @Test
    void claimLosesOnTerminalRunsAndOnRunsThatDoNotExist() {
        Job job = job();
        assertThat(claim(job, "ex-a").won()).isTrue();
        assertThat(finish(Fixture.outcome(Transition.SUCCEED, job.id(), job.pendingRunId(), now, 1, "ex-a", 0)))
                .isTrue();

        Transactions.Outcome done = claim(job, "ex-b");
        assertThat(done.won()).isFalse();
        assertThat(Items.str(done.oldItem(1), "state")).isEqualTo("SUCCEEDED");

        Transactions.Outcome missing =
                Fixture.claim(p, job.id(), RunIds.forOccurrence(now.plusSeconds(999)), "ex-b", now, LEASE);
        assertThat(missing.won()).isFalse();
        assertThat(missing.failed(1)).isTrue();
        assertThat(missing.oldItem(1)).as("no item to return").isNull();
        assertThat(Fixture.countItems(p, p.resources.runs().name())).isEqualTo(1);
    }

    @Test
    void heartbeatOnlyByTheHolderOfTheCurrentAttempt() {
        Job job = takenOver();
        Instant later = clock.instant().plusSeconds(10);

        assertThat(heartbeat(job, 1, "ex-a", later)).as("stale attempt").isFalse();
        assertThat(heartbeat(job, 2, "ex-a", later)).as("other executor").isFalse();
        assertThat(run(job).leaseExpiry()).isEqualTo(clock.instant().plus(LEASE));

        assertThat(heartbeat(job, 2, "ex-b", later)).isTrue();
        assertThat(run(job).leaseExpiry()).isEqualTo(later.plus(LEASE));
    }

    @Test
    void finishOnlyByTheHolderAndTerminalOutcomesGetATtl() {
        Job job = takenOver();
        String runId = job.pendingRunId();
        Instant t = clock.instant();
        Instant expires = t.plus(Duration.ofDays(7));

        assertThat(finish(Fixture.outcome(Transition.SUCCEED, job.id(), runId, t, 1, "ex-a", 0)))
                .as("stale attempt")
                .isFalse();
        assertThat(finish(Fixture.outcome(Transition.SUCCEED, job.id(), runId, t, 2, "ex-a", 0)))
                .as("other executor")
                .isFalse();
        assertThat(run(job).state()).isEqualTo(RunState.RUNNING);

        assertThat(finish(Fixture.outcome(Transition.SUCCEED, job.id(), runId, t, 2, "ex-b", 0)
                        .withLogKey("logs/x")))
                .isTrue();
        Run r = run(job);
        assertThat(r.state()).isEqualTo(RunState.SUCCEEDED);
        assertThat(r.exitCode()).isZero();
        assertThat(r.finishedAt()).isEqualTo(t);
        assertThat(r.logKey()).isEqualTo("logs/x");
        assertThat(r.leaseExpiry()).isNull();
        Map<String, AttributeValue> raw = Fixture.rawRun(p, job.id(), runId);
        assertThat(Items.longValue(raw, Resources.EXPIRES_AT)).isEqualTo(expires.getEpochSecond());

        // Once finished, even the holder cannot write again.
        assertThat(Fixture.die(p, job.id(), runId, t, 2, "ex-b", 1, "x")).isFalse();
    }

    @Test
    void aFailedOutcomeIsNotTerminalAndGetsNoTtl() {
        Job job = job();
        assertThat(claim(job, "ex-a").won()).isTrue();

        assertThat(finish(Fixture.outcome(Transition.FAIL, job.id(), job.pendingRunId(), now, 1, "ex-a", 3)
                        .withError("exited with code 3")))
                .isTrue();

        Map<String, AttributeValue> raw = Fixture.rawRun(p, job.id(), job.pendingRunId());
        assertThat(raw).doesNotContainKey(Resources.EXPIRES_AT);
        assertThat(run(job).error()).isEqualTo("exited with code 3");
        assertThat(run(job).exitCode()).isEqualTo(3);

        // DEAD is terminal.
        clock.advance(Duration.ofSeconds(1));
        assertThat(claim(job, "ex-a").won()).isTrue();
        Instant expires = clock.instant().plus(Duration.ofDays(7));
        assertThat(Fixture.die(p, job.id(), job.pendingRunId(), clock.instant(), 2, "ex-a", 3, "exited with code 3"))
                .isTrue();
        assertThat(Items.longValue(Fixture.rawRun(p, job.id(), job.pendingRunId()), Resources.EXPIRES_AT))
                .isEqualTo(expires.getEpochSecond());
    }

    @Test
    void cancelScheduledWinsOnlyFromScheduled() {
        Job scheduled = job();
        assertThat(cancelScheduled(scheduled)).isTrue();
        assertThat(run(scheduled).state()).isEqualTo(RunState.CANCELLED);
        assertThat(run(scheduled).error()).isEqualTo("job deleted");
        assertThat(Fixture.rawRun(p, scheduled.id(), scheduled.pendingRunId()))
                .doesNotContainKeys(Resources.DUE_SHARD, Resources.DUE_SORT);

        Job queued = job();
        assertThat(markQueued(queued)).isTrue();
        assertThat(cancelScheduled(queued)).isFalse();
        assertThat(run(queued).state()).isEqualTo(RunState.QUEUED);
    }

    @Test
    void cancelUnstartedWinsFromQueuedWithATtl() {
        Job job = job();
        assertThat(markQueued(job)).isTrue();
        Instant expires = now.plus(Duration.ofDays(7));

        assertThat(cancelUnstarted(job)).isTrue();

        assertThat(run(job).state()).isEqualTo(RunState.CANCELLED);
        assertThat(Items.longValue(Fixture.rawRun(p, job.id(), job.pendingRunId()), Resources.EXPIRES_AT))
                .isEqualTo(expires.getEpochSecond());
    }

    @Test
    void cancelUnstartedLosesFromRunning() {
        Job job = job();
        assertThat(claim(job, "ex-a").won()).isTrue();

        assertThat(cancelUnstarted(job)).isFalse();
        assertThat(run(job).state()).isEqualTo(RunState.RUNNING);
    }

    @Test
    void dueInReturnsOnlyScheduledRunsOfThatPartitionDueByTheBound() {
        Instant minute = TimeBuckets.bucketOf(now.plus(Duration.ofMinutes(5)));
        Job early = Fixture.insertOnceJob(p, minute.plusSeconds(10), now);
        Job late = Fixture.insertOnceJob(p, minute.plusSeconds(40), now);
        Job queued = Fixture.insertOnceJob(p, minute.plusSeconds(20), now);
        Job nextMinute = Fixture.insertOnceJob(p, minute.plusSeconds(70), now);
        assertThat(markQueued(queued)).isTrue();

        Instant upTo = minute.plusSeconds(30);
        List<Run> found = new java.util.ArrayList<>();
        for (int shard = 0; shard < p.buckets.shards(); shard++) {
            List<Run> part = p.runs.dueIn(TimeBuckets.partition(minute, shard), upTo);
            for (Run r : part) {
                assertThat(p.buckets.shardOf(r.jobId(), r.runId())).isEqualTo(shard);
            }
            found.addAll(part);
        }

        assertThat(found).extracting(Run::jobId).containsExactly(early.id());
        assertThat(found.get(0).state()).isEqualTo(RunState.SCHEDULED);
        // The bound is inclusive, and the next minute lives in its own partitions.
        List<Run> inclusive = new java.util.ArrayList<>();
        for (int shard = 0; shard < p.buckets.shards(); shard++) {
            inclusive.addAll(p.runs.dueIn(TimeBuckets.partition(minute, shard), minute.plusSeconds(40)));
        }
        assertThat(inclusive).extracting(Run::jobId).containsExactlyInAnyOrder(early.id(), late.id());
        String nextPartition =
                p.buckets.partitionFor(nextMinute.nextRunAt(), nextMinute.id(), nextMinute.pendingRunId());
        assertThat(p.runs.dueIn(nextPartition, minute.plusSeconds(40))).isEmpty();
        assertThat(p.runs.dueIn(nextPartition, minute.plus(1, ChronoUnit.HOURS)))
                .extracting(Run::jobId)
                .containsExactly(nextMinute.id());
    }
}
