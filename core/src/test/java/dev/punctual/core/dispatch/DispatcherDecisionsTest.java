package dev.punctual.core.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.notify.CapturedNotices;
import dev.punctual.core.notify.RunNotice;
import dev.punctual.core.plan.RunPlanner;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunSender;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.store.DispatchStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's decisions, on a store and a queue in memory (no emulator): what it sends, how it moves each job
 * on, and what it leaves for a later sweep when a write or a send goes wrong. The same paths on DynamoDB Local and
 * ElasticMQ are SweeperTest's and SweepWorkersTest's; the conditions the in-memory store applies are those of
 * TableDispatchStore's writes (JobAndWatermarkRepositoryTest checks them on the emulator).
 */
class DispatcherDecisionsTest {
    /** A chosen instant, 20 s into a minute, nowhere near a month's end. */
    private final Instant now = Instant.parse("2031-05-14T09:41:20Z");

    private final InMemoryDispatchStore store = new InMemoryDispatchStore();
    private final Sent sent = new Sent();
    private final CapturedNotices notices = new CapturedNotices();
    private final Dispatcher dispatcher = new Dispatcher(
            store,
            sent,
            new Schedules(Duration.ofSeconds(1)),
            Clock.fixed(now, ZoneOffset.UTC),
            new RunPlanner(new SplittableRandom(7)),
            notices,
            8,
            Duration.ZERO);

    /** Messages sent, in order; refuses every batch while {@link #refuse} is set. */
    private static final class Sent implements RunSender {
        final List<RunMessage> messages = new CopyOnWriteArrayList<>();
        volatile boolean refuse;

        @Override
        public Set<Integer> sendBatch(List<RunMessage> batch, Instant at) {
            if (refuse) {
                return Set.of();
            }
            messages.addAll(batch);
            Set<Integer> all = new HashSet<>();
            IntStream.range(0, batch.size()).forEach(all::add);
            return all;
        }

        List<Instant> dueTimes(String jobId) {
            return messages.stream()
                    .filter(m -> m.jobId().equals(jobId))
                    .map(RunMessage::scheduledAt)
                    .toList();
        }
    }

    /** An ACTIVE job every {@code every} from {@code first}, whose pending run is {@code first}'s, in the store. */
    private Job job(String id, Duration every, Instant first, FiringPolicy firing) {
        Run pending = Run.scheduled(id, RunIds.forOccurrence(first), "tenant-a", first, 3, first.minusSeconds(60));
        Job job = Job.builder()
                .id(id)
                .owner("tenant-a")
                .name(id)
                .binaryId("bin_x")
                .binarySha256("0".repeat(64))
                .args(List.of())
                .env(Map.of())
                .schedule(ScheduleSpec.interval(every.toString(), first.toString(), null))
                .timeoutSeconds(60)
                .maxAttempts(3)
                .firing(firing)
                .state(JobState.ACTIVE)
                .version(1)
                .createdAt(first.minusSeconds(60))
                .updatedAt(first.minusSeconds(60))
                .pendingRunId(pending.runId())
                .nextRunAt(first)
                .build();
        store.put(job);
        store.put(pending);
        return job;
    }

    private Job job(String id, Duration every, Instant first) {
        return job(id, every, first, FiringPolicy.DEFAULT);
    }

    private Run pendingOf(Job job) {
        return store.runNow(job.id(), job.pendingRunId());
    }

    private RunState stateOf(Job job, Instant occurrence) {
        return store.runNow(job.id(), RunIds.forOccurrence(occurrence)).state();
    }

    @Test
    void aDueRunIsSentWithItsJobsHintThenItsJobMovesToTheNextOccurrenceAndTheRunIsMarked() {
        Instant due = now.minusSeconds(1);
        Job job = job("job-a", Duration.ofMinutes(1), due);

        Dispatcher.DispatchReport r = dispatcher.dispatch(List.of(pendingOf(job)), now.plusSeconds(30));

        assertThat(sent.messages).singleElement().satisfies(m -> {
            assertThat(m.runId()).isEqualTo(RunIds.forOccurrence(due));
            assertThat(m.hint())
                    .as("the job's firing policy, for a claim without a read")
                    .isNotNull();
        });
        Job moved = store.jobNow(job.id());
        assertThat(moved.pendingRunId()).isEqualTo(RunIds.forOccurrence(due.plusSeconds(60)));
        assertThat(moved.nextRunAt()).isEqualTo(due.plusSeconds(60));
        assertThat(stateOf(job, due)).isEqualTo(RunState.QUEUED);
        assertThat(stateOf(job, due.plusSeconds(60)))
                .as("beyond the horizon: written, not sent")
                .isEqualTo(RunState.SCHEDULED);
        assertThat(List.of(r.sent, r.materialized, r.marked)).containsExactly(1, 1, 1);
        assertThat(r.failed).isEmpty();
    }

    @Test
    void occurrencesDueWithinTheHorizonAreSentInTheSameDispatchInOrder() {
        Job job = job("job-a", Duration.ofSeconds(10), now);

        Dispatcher.DispatchReport r = dispatcher.dispatch(List.of(pendingOf(job)), now.plusSeconds(35));

        assertThat(sent.dueTimes(job.id()))
                .containsExactly(now, now.plusSeconds(10), now.plusSeconds(20), now.plusSeconds(30));
        assertThat(store.jobNow(job.id()).nextRunAt()).isEqualTo(now.plusSeconds(40));
        assertThat(store.advances)
                .as("each move written on the job as the last one left it: read once, before the first")
                .extracting(Job::pendingRunId)
                .containsExactly(
                        RunIds.forOccurrence(now),
                        RunIds.forOccurrence(now.plusSeconds(10)),
                        RunIds.forOccurrence(now.plusSeconds(20)),
                        RunIds.forOccurrence(now.plusSeconds(30)));
        assertThat(r.sent).isEqualTo(4);
    }

    @Test
    void aJobChangedSinceItWasReadIsReadAgainAndMovedOnFromWhatItIsNow() {
        Job job = job("job-a", Duration.ofMinutes(1), now);
        // An update lands between the dispatcher's read and its write (version 2, a new timeout).
        store.answer = seen -> {
            if (seen.version() == 1) {
                store.put(store.jobNow(job.id()).toBuilder()
                        .version(2)
                        .timeoutSeconds(90)
                        .build());
            }
            return null;
        };

        Dispatcher.DispatchReport r = dispatcher.dispatch(List.of(pendingOf(job)), now.plusSeconds(30));

        assertThat(store.advances).extracting(Job::version).containsExactly(1L, 2L);
        Job moved = store.jobNow(job.id());
        assertThat(moved.timeoutSeconds()).as("the update kept").isEqualTo(90);
        assertThat(moved.nextRunAt()).isEqualTo(now.plusSeconds(60));
        assertThat(stateOf(job, now)).isEqualTo(RunState.QUEUED);
        assertThat(r.materialized).isEqualTo(1);
    }

    @Test
    void aNextOccurrenceThatAlreadyHasARunIsSteppedOver() {
        Job job = job("job-a", Duration.ofMinutes(1), now);
        Instant backfilled = now.plusSeconds(60);
        // A backfill ran the next occurrence already.
        store.put(Run.scheduled(job.id(), RunIds.forOccurrence(backfilled), "tenant-a", backfilled, 3, now));
        store.apply(dev.punctual.core.run.Change.of(
                Transition.MARK_QUEUED, job.id(), RunIds.forOccurrence(backfilled), now));

        dispatcher.dispatch(List.of(pendingOf(job)), now.plusSeconds(30));

        assertThat(store.jobNow(job.id()).nextRunAt()).isEqualTo(now.plusSeconds(120));
        assertThat(stateOf(job, backfilled)).as("the backfill's run untouched").isEqualTo(RunState.QUEUED);
        assertThat(stateOf(job, now.plusSeconds(120))).isEqualTo(RunState.SCHEDULED);
    }

    @Test
    void aSuccessionHeldByOtherTransactionsLeavesTheRunScheduledForALaterSweep() {
        Job job = job("job-a", Duration.ofMinutes(1), now);
        store.answer = seen -> DispatchStore.Outcome.CONFLICT;

        Dispatcher.DispatchReport r = dispatcher.dispatch(List.of(pendingOf(job)), now.plusSeconds(30));

        assertThat(r.sent)
                .as("its message is out: the claim absorbs the next sweep's")
                .isEqualTo(1);
        assertThat(r.failed).extracting(Run::runId).containsExactly(job.pendingRunId());
        assertThat(stateOf(job, now)).as("not marked").isEqualTo(RunState.SCHEDULED);
        assertThat(store.jobNow(job.id())).isEqualTo(job);
    }

    @Test
    void aRunWhoseMessageIsRefusedIsNeitherMovedOnNorMarked() {
        Job job = job("job-a", Duration.ofMinutes(1), now);
        sent.refuse = true;

        Dispatcher.DispatchReport r = dispatcher.dispatch(List.of(pendingOf(job)), now.plusSeconds(30));

        assertThat(r.sent).isZero();
        assertThat(r.failed).extracting(Run::runId).containsExactly(job.pendingRunId());
        assertThat(store.advances).isEmpty();
        assertThat(store.changes).isEmpty();
        assertThat(stateOf(job, now)).isEqualTo(RunState.SCHEDULED);
    }

    @Test
    void pastTheDeadlineNothingIsSentOrWrittenAndEveryRunIsDeferred() {
        List<Run> due = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            due.add(pendingOf(job("job-" + i, Duration.ofMinutes(1), now)));
        }

        Dispatcher.DispatchReport r = dispatcher.dispatch(due, List.of(), now.plusSeconds(30), now.minusMillis(1));

        assertThat(r.deferred).containsExactlyInAnyOrderElementsOf(due);
        assertThat(sent.messages).isEmpty();
        assertThat(store.advances).isEmpty();
        assertThat(store.changes).isEmpty();
    }

    @Test
    void aMissedRunThatItsCatchUpPolicySkipsIsSkippedAndTheFirstOccurrenceNotMissedIsSentInstead() {
        // Due 10 min 20 s ago, every minute: the occurrences up to 1 min ago are missed; skip runs none of them.
        Instant first = now.minus(Duration.ofMinutes(10)).minusSeconds(20);
        FiringPolicy skip = new FiringPolicy(null, CatchUp.DEFAULT.withMode(CatchUp.Mode.SKIP), null, null);
        Job job = job("job-a", Duration.ofMinutes(1), first, skip);

        Dispatcher.DispatchReport r = dispatcher.dispatch(List.of(pendingOf(job)), now.plusSeconds(30));

        Instant kept = first.plus(Duration.ofMinutes(10));
        assertThat(store.runNow(job.id(), RunIds.forOccurrence(first))).satisfies(run -> {
            assertThat(run.state()).isEqualTo(RunState.SKIPPED);
            assertThat(run.error()).startsWith("missed: not run by catchUp skip");
        });
        assertThat(sent.dueTimes(job.id()))
                .as("the first occurrence less than a minute late, sent at once")
                .containsExactly(kept);
        assertThat(stateOf(job, kept)).isEqualTo(RunState.QUEUED);
        assertThat(store.jobNow(job.id()).nextRunAt()).isEqualTo(kept.plus(Duration.ofMinutes(1)));
        assertThat(r.skipped).isEqualTo(1);
        assertThat(notices.published)
                .singleElement()
                .isInstanceOfSatisfying(
                        RunNotice.class, n -> assertThat(n.state()).isEqualTo(RunState.SKIPPED));
    }

    @Test
    void oneJobsFailedWriteLeavesTheOtherJobsMovedOn() {
        Job broken = job("job-broken", Duration.ofMinutes(1), now);
        List<Job> fine = IntStream.range(0, 20)
                .mapToObj(i -> job("job-" + i, Duration.ofMinutes(1), now))
                .toList();
        store.answer = seen -> {
            if (seen.id().equals(broken.id())) {
                throw new IllegalStateException("throttled");
            }
            return null;
        };
        List<Run> due = new ArrayList<>(fine.stream().map(this::pendingOf).toList());
        due.add(pendingOf(broken));

        Dispatcher.DispatchReport r = dispatcher.dispatch(due, now.plusSeconds(30));

        assertThat(r.failed).extracting(Run::jobId).containsExactly(broken.id());
        assertThat(fine)
                .allSatisfy(j -> assertThat(store.jobNow(j.id()).nextRunAt()).isEqualTo(now.plusSeconds(60)));
        assertThat(store.jobNow(broken.id())).isEqualTo(broken);
        assertThat(sent.messages).hasSize(21);
    }

    @Test
    void anErrorInOneChainEndsTheDispatchAndIsThrown() {
        Job job = job("job-a", Duration.ofMinutes(1), now);
        store.answer = seen -> {
            throw new StackOverflowError("injected");
        };

        assertThatThrownBy(() -> dispatcher.dispatch(List.of(pendingOf(job)), now.plusSeconds(30)))
                .isInstanceOf(StackOverflowError.class)
                .hasMessage("injected");
        assertThat(stateOf(job, now)).as("its message out, not marked").isEqualTo(RunState.SCHEDULED);
    }
}
