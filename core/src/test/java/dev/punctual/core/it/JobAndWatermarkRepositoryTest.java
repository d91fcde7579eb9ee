package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.job.Expectation;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.job.Webhook;
import dev.punctual.core.run.RunIds;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The conditional writes of the jobs and sweeps tables on DynamoDB Local, won and lost. */
class JobAndWatermarkRepositoryTest {
    private final Instant now = Instant.parse("2030-01-01T10:00:00Z");
    private final Punctual p = Fixture.stackAt(now);

    private Job intervalJob() {
        return Fixture.insertJob(p, Fixture.interval(Duration.ofSeconds(10), now), now, now, 3);
    }

    private boolean advance(Job job, String current, Instant next) {
        return p.tx.write(List.of(p.jobs.advancePending(
                        job.id(), job.version(), current, next == null ? null : RunIds.forOccurrence(next), next, now)))
                .won();
    }

    @Test
    void advancePendingWinsOnceAndTheSecondWriterWithTheOldRunLoses() {
        Job job = intervalJob();
        Instant next = now.plusSeconds(10);

        assertThat(advance(job, job.pendingRunId(), next)).isTrue();
        assertThat(advance(job, job.pendingRunId(), next))
                .as("stale current run id")
                .isFalse();
        assertThat(advance(job, job.pendingRunId(), now.plusSeconds(20))).isFalse();

        Job after = p.jobs.get(job.id()).orElseThrow();
        assertThat(after.pendingRunId()).isEqualTo(RunIds.forOccurrence(next));
        assertThat(after.nextRunAt()).isEqualTo(next);
        assertThat(after.state()).isEqualTo(JobState.ACTIVE);
    }

    @Test
    void advancePendingLosesToAnUpdateThatKeptThePendingRun() {
        Job job = intervalJob();
        Job read = job.toBuilder().version(job.version() - 1).build();

        assertThat(advance(read, job.pendingRunId(), now.plusSeconds(10)))
                .as("planned from the definition before the update")
                .isFalse();
        assertThat(p.jobs.get(job.id()).orElseThrow().pendingRunId()).isEqualTo(job.pendingRunId());
        assertThat(advance(job, job.pendingRunId(), now.plusSeconds(10))).isTrue();
    }

    @Test
    void advancePendingToNothingCompletesTheJob() {
        Job job = intervalJob();

        assertThat(advance(job, job.pendingRunId(), null)).isTrue();

        Job after = p.jobs.get(job.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(JobState.COMPLETED);
        assertThat(after.pendingRunId()).isNull();
        assertThat(after.nextRunAt()).isNull();
    }

    @Test
    void advancePendingLosesOnADeletedJob() {
        Job job = intervalJob();
        assertThat(Fixture.markDeleted(p, job.id(), Fixture.OWNER, job.pendingRunId(), now))
                .isTrue();

        assertThat(advance(job, job.pendingRunId(), now.plusSeconds(10))).isFalse();
        assertThat(p.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.DELETED);
    }

    @Test
    void markDeletedLosesOnAWrongExpectedPendingRunOrOwnerAndWinsOnTheRightOne() {
        Job job = intervalJob();

        assertThat(Fixture.markDeleted(p, job.id(), Fixture.OWNER, RunIds.forOccurrence(now.plusSeconds(10)), now))
                .as("wrong pending")
                .isFalse();
        assertThat(Fixture.markDeleted(p, job.id(), Fixture.OWNER, null, now))
                .as("expects no pending, has one")
                .isFalse();
        assertThat(Fixture.markDeleted(p, job.id(), "someone-else", job.pendingRunId(), now))
                .as("other owner")
                .isFalse();
        assertThat(p.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.ACTIVE);

        assertThat(Fixture.markDeleted(p, job.id(), Fixture.OWNER, job.pendingRunId(), now))
                .isTrue();
        Job deleted = p.jobs.get(job.id()).orElseThrow();
        assertThat(deleted.state()).isEqualTo(JobState.DELETED);
        assertThat(deleted.version()).isEqualTo(2);
        assertThat(deleted.pendingRunId()).isNull();

        assertThat(Fixture.markDeleted(p, job.id(), Fixture.OWNER, null, now))
                .as("already deleted")
                .isFalse();
    }

    /**
     * A replacement writes the whole definition it carries (every attribute {@code JobItems.definition} names) and
     * removes the optional ones it leaves empty, whatever the job had: the job read back defines the same job.
     */
    @Test
    void aReplacementWritesTheWholeDefinitionAndRemovesWhatItLeavesEmpty() {
        Job job = intervalJob();
        Job full = job.toBuilder()
                .name("renamed")
                .args(List.of("--full"))
                .env(Map.of("MODE", "full"))
                .timeoutSeconds(77)
                .maxAttempts(5)
                .nonRetryableExitCodes(List.of(2, 64))
                .labels(Map.of("team", "billing"))
                .webhook(new Webhook("https://hooks.example.com/punctual", Set.of("DEAD")))
                .expect(new Expectation(Duration.ofMinutes(5), null))
                .version(job.version() + 1)
                .build();
        Job empty = full.toBuilder()
                .name("emptied")
                .nonRetryableExitCodes(List.of())
                .labels(Map.of())
                .webhook(null)
                .expect(null)
                .version(full.version() + 1)
                .build();

        assertThat(replace(full, job)).isTrue();
        Job read = p.jobs.get(job.id()).orElseThrow();
        assertThat(read.sameDefinition(full)).as("read back %s", read).isTrue();
        assertThat(read.sameDefinition(job)).isFalse();

        assertThat(replace(empty, full)).isTrue();
        read = p.jobs.get(job.id()).orElseThrow();
        assertThat(read.sameDefinition(empty)).as("read back %s", read).isTrue();
        assertThat(read.nonRetryableExitCodes()).isEmpty();
        assertThat(read.labels()).isEmpty();
        assertThat(read.webhook()).isNull();
        assertThat(read.expect()).isNull();

        assertThat(replace(full, full))
                .as("conditional on the version replaced")
                .isFalse();
    }

    private boolean replace(Job with, Job replaced) {
        return p.tx.write(List.of(p.jobs.replace(with, replaced.version(), replaced.pendingRunId())))
                .won();
    }

    @Test
    void insertingAJobTwiceLoses() {
        Job job = intervalJob();
        assertThat(p.tx.write(List.of(p.jobs.insert(job))).won()).isFalse();
    }

    @Test
    void theWatermarkOnlyMovesForward() {
        Instant t1 = Instant.parse("2030-01-01T09:58:00Z");
        Instant t2 = Instant.parse("2030-01-01T09:59:00Z");
        assertThat(p.watermarks.get()).isEmpty();

        assertThat(p.watermarks.advance(t2, now)).isTrue();
        assertThat(p.watermarks.advance(t1, now)).as("backwards").isFalse();
        assertThat(p.watermarks.advance(t2, now)).as("same place").isFalse();
        assertThat(p.watermarks.get()).contains(t2);

        Instant t3 = t2.plus(Duration.ofMinutes(1));
        assertThat(p.watermarks.advance(t3, now)).isTrue();
        assertThat(p.watermarks.get()).contains(t3);
    }

    @Test
    void aShardsMarkIsItsOwnElseTheLowestOfTheOthersElseTheOneAllShardsOnceShared() {
        Instant shared = Instant.parse("2030-01-01T09:00:00Z");
        Instant low = Instant.parse("2030-01-01T09:50:00Z");
        Instant high = Instant.parse("2030-01-01T09:55:00Z");
        assertThat(p.watermarks.get(List.of(0, 1, 2)).from())
                .as("none yet: sweeps start from now")
                .isEmpty();

        assertThat(p.watermarks.advance(shared, now)).isTrue();
        assertThat(p.watermarks.get(List.of(0, 1, 2)).from())
                .as("before any shard has its own, each starts from the one of older versions")
                .isEqualTo(Map.of(0, shared, 1, shared, 2, shared));

        assertThat(p.watermarks.advance(1, high, now)).isTrue();
        assertThat(p.watermarks.advance(2, low, now)).isTrue();
        assertThat(p.watermarks.advance(2, shared, now)).as("backwards").isFalse();
        assertThat(p.watermarks.get(List.of(0, 1, 2)).from())
                .as("a shard without its own (new, as punctual.shards grew) takes the lowest of the others'")
                .isEqualTo(Map.of(0, low, 1, high, 2, low));
        assertThat(p.watermarks.get(List.of(0, 1, 2)).own())
                .as("shard 0's start is borrowed: its next sweep must write it")
                .containsExactlyInAnyOrder(1, 2);
        assertThat(p.watermarks.get(List.of(0, 3)).from())
                .as("read by another worker, still the lowest of every shard's own")
                .isEqualTo(Map.of(0, low, 3, low));
    }

    @Test
    void oneWriteMovesAWorkersShardsAndAShardAlreadyAheadKeepsItsMarkWhileTheOthersMove() {
        Instant a = Instant.parse("2030-01-01T09:50:00Z");
        Instant b = Instant.parse("2030-01-01T09:51:00Z");
        Instant c = Instant.parse("2030-01-01T09:52:00Z");
        assertThat(p.watermarks.advance(Map.of(0, a, 2, a), now))
                .as("the first write of all makes the item")
                .containsExactlyInAnyOrder(0, 2);
        assertThat(p.watermarks.advance(Map.of(1, b, 3, b), now))
                .as("another worker's shards, beside them")
                .containsExactlyInAnyOrder(1, 3);
        assertThat(p.watermarks.advance(2, c, now)).isTrue();

        assertThat(p.watermarks.advance(Map.of(0, b, 2, b), now))
                .as("shard 2 is already further (a sweeper that overlapped): only 0 moves")
                .containsExactly(0);
        assertThat(p.watermarks.get(List.of(0, 1, 2, 3)).from()).isEqualTo(Map.of(0, b, 1, b, 2, c, 3, b));
        assertThat(p.watermarks.advance(Map.of(0, a), now)).as("backwards").isEmpty();
    }
}
