package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static dev.punctual.core.it.Fixture.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.job.Job;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.Page;
import dev.punctual.core.service.RunView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import dev.punctual.core.time.TimeBuckets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** Dead letters on the emulators: the sparse byOwnerState index, its listing, and the re-drive of a DEAD run. */
class DeadLetterTest {
    private static final Duration LEASE = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    private Punctual p;

    // --- repository writes, on a settable clock ---

    /** A claim at {@code t}; it wins only once the run is due (the jobs here are due when written). */
    private boolean claim(Job job, String executor, Instant t) {
        return Fixture.claim(p, job, executor, t, LEASE).won();
    }

    /** A redrive of the job's pending run seen at attempt {@code attempt}, to 4 attempts in all; whether it won. */
    private boolean redrive(Job job, int attempt, Instant t) {
        return p.runs.apply(Change.of(Transition.REDRIVE, job.id(), job.pendingRunId(), t)
                        .withAttempt(attempt)
                        .withMaxAttempts(4))
                .won();
    }

    @Test
    void aDeadOutcomeEntersTheDeadIndexAndARedriveTakesItOutAndBackIntoTheDueIndex() {
        Instant now = Instant.parse("2030-01-01T10:00:00Z");
        SettableClock clock = new SettableClock(now);
        p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        Job job = Fixture.insertJob(p, Fixture.once(now), now, now, 1);
        String runId = job.pendingRunId();
        // Sent and marked, as the dispatcher does (a run claimed straight from SCHEDULED keeps an index entry).
        assertThat(Fixture.markQueued(p, job, now)).isTrue();
        assertThat(claim(job, "ex-a", now)).isTrue();

        // A lost finish (wrong attempt) writes nothing, so the run is not listed.
        assertThat(Fixture.die(p, job.id(), runId, now, 2, "ex-a", 3, "exited with code 3"))
                .isFalse();
        assertThat(Fixture.rawRun(p, job.id(), runId))
                .doesNotContainKeys(Resources.OWNER_STATE, Resources.FINISHED_SORT);
        assertThat(p.runs.listDead(OWNER, 10, null).items()).isEmpty();

        Instant dead = now.plusSeconds(5);
        assertThat(Fixture.die(p, job.id(), runId, dead, 1, "ex-a", 3, "exited with code 3"))
                .isTrue();
        Map<String, AttributeValue> raw = Fixture.rawRun(p, job.id(), runId);
        assertThat(Items.str(raw, Resources.OWNER_STATE)).isEqualTo(OWNER + "#DEAD");
        assertThat(Items.str(raw, Resources.FINISHED_SORT)).isEqualTo(TimeBuckets.sortKey(dead, job.id(), runId));
        assertThat(raw).doesNotContainKeys(Resources.DUE_SHARD, Resources.DUE_SORT);
        assertThat(p.runs.listDead(OWNER, 10, null).items())
                .extracting(Run::runId)
                .containsExactly(runId);
        assertThat(p.runs.listDead("someone-else", 10, null).items()).isEmpty();

        // A redrive at a stale attempt loses; at the attempt seen it wins.
        Instant later = dead.plusSeconds(60);
        assertThat(redrive(job, 0, later)).isFalse();
        assertThat(Fixture.run(p, job.id(), runId).state()).isEqualTo(RunState.DEAD);
        assertThat(redrive(job, 1, later)).isTrue();
        Run r = Fixture.run(p, job.id(), runId);
        assertThat(r.state()).isEqualTo(RunState.QUEUED);
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(r.maxAttempts()).isEqualTo(4);
        raw = Fixture.rawRun(p, job.id(), runId);
        assertThat(raw).doesNotContainKeys(Resources.OWNER_STATE, Resources.FINISHED_SORT, Resources.EXPIRES_AT);
        Instant attention = later.plus(p.settings.sweep().lookahead())
                .plus(p.settings.sweep().requeueAfter());
        assertThat(Items.str(raw, Resources.DUE_SORT)).isEqualTo(TimeBuckets.sortKey(attention, job.id(), runId));
        assertThat(p.runs.listDead(OWNER, 10, null).items()).isEmpty();
        // Not DEAD any more: a second redrive loses.
        assertThat(redrive(job, 1, later)).isFalse();
        // The next claim continues the attempt count: the fencing token only grows.
        assertThat(claim(job, "ex-b", later)).isTrue();
        assertThat(Fixture.run(p, job.id(), runId).attempt()).isEqualTo(2);
    }

    @Test
    void deadRunsAreListedNewestFirstPageByPageAndOnlyStateDeadIsAccepted() {
        Instant now = Instant.parse("2030-01-01T10:00:00Z");
        SettableClock clock = new SettableClock(now);
        p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Job job = Fixture.insertJob(p, Fixture.once(now), now, now, 1);
            assertThat(claim(job, "ex-a", now)).isTrue();
            Instant t = now.plusSeconds(10 + i);
            assertThat(Fixture.die(p, job.id(), job.pendingRunId(), t, 1, "ex-a", 1, "x"))
                    .isTrue();
            expected.add(0, job.pendingRunId());
        }
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            Page<RunView> page = p.deadLetters.list(OWNER, "DEAD", 2, cursor);
            assertThat(page.items())
                    .hasSizeLessThanOrEqualTo(2)
                    .allMatch(v -> v.state().equals("DEAD"));
            page.items().forEach(v -> seen.add(v.runId()));
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null && pages < 10);
        assertThat(seen).containsExactlyElementsOf(expected);
        assertThat(pages).isBetween(2, 3);

        assertThatThrownBy(() -> p.deadLetters.list(OWNER, null, null, null))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(
                                ((ValidationException) e).errors().get(0).field())
                        .isEqualTo("state"));
        assertThatThrownBy(() -> p.deadLetters.list(OWNER, "FAILED", null, null))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).kind()).isEqualTo(Rejection.MALFORMED));
    }

    private int dlqMessages(String url) {
        Map<QueueAttributeName, String> a = Fixture.sqs()
                .getQueueAttributes(b -> b.queueUrl(url)
                        .attributeNames(
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                .attributes();
        return Integer.parseInt(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                + Integer.parseInt(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
    }

    @Test
    void theSweeperReconcilesTheDeadLetterQueue() {
        Instant now = Instant.parse("2030-01-01T10:00:00Z");
        SettableClock clock = new SettableClock(now);
        p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        String dlq = Fixture.sqs()
                .getQueueUrl(b -> b.queueName(p.resources.runQueue().deadLetterName()))
                .queueUrl();
        Instant due = now; // due: claimable at once
        // A QUEUED run waiting for the message that died: marked DEAD.
        Job queued = Fixture.insertJob(p, Fixture.once(due), due, now, 3);
        assertThat(Fixture.markQueued(p, queued, now)).isTrue();
        // A finished run: only the message goes.
        Job done = Fixture.insertJob(p, Fixture.once(due), due, now, 3);
        assertThat(claim(done, "ex-a", now)).isTrue();
        assertThat(p.runs.apply(Fixture.outcome(Transition.SUCCEED, done.id(), done.pendingRunId(), now, 1, "ex-a", 0))
                        .won())
                .isTrue();
        // A run held under a live lease: left alone, and its message stays for a later sweep.
        Job running = Fixture.insertJob(p, Fixture.once(due), due, now, 3);
        assertThat(claim(running, "ex-a", now)).isTrue();
        for (Job j : List.of(queued, done, running)) {
            Fixture.sqs()
                    .sendMessage(
                            b -> b.queueUrl(dlq).messageBody(new RunMessage(j.id(), j.pendingRunId(), due).encode()));
        }
        Fixture.sqs().sendMessage(b -> b.queueUrl(dlq).messageBody("not a run message"));
        assertThat(dlqMessages(dlq)).isEqualTo(4);

        clock.advance(Duration.ofSeconds(5));
        assertThat(p.sweeper.reconcileDeadLetters()).isEqualTo(1);

        Run dead = Fixture.run(p, queued.id(), queued.pendingRunId());
        assertThat(dead.state()).isEqualTo(RunState.DEAD);
        assertThat(dead.error()).isEqualTo("message dead-lettered after " + Resources.MAX_RECEIVE_COUNT + " receives");
        assertThat(Fixture.rawRun(p, queued.id(), queued.pendingRunId()))
                .doesNotContainKeys(Resources.DUE_SHARD, Resources.DUE_SORT)
                .containsKey(Resources.EXPIRES_AT);
        assertThat(p.runs.listDead(OWNER, 10, null).items())
                .extracting(Run::jobId)
                .containsExactly(queued.id());
        assertThat(Fixture.run(p, done.id(), done.pendingRunId()).state()).isEqualTo(RunState.SUCCEEDED);
        assertThat(Fixture.run(p, running.id(), running.pendingRunId()).state()).isEqualTo(RunState.RUNNING);
        assertThat(dlqMessages(dlq)).as("only the live run's message is kept").isEqualTo(1);
    }

    // --- the service on real executors and real time ---

    @Test
    void aRunThatWentDeadIsListedAndARetryRunsItAgainUntilItSucceeds() throws Exception {
        p = Fixture.stack(Fixture.fastRetries().build(), Clock.systemUTC());
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        Path witness = Fixture.witness(tmp);
        Path healed = Fixture.shared(tmp).resolve("healed");
        JobView job = Fixture.createJob(
                p,
                "flaky",
                "echo \"$SCHEDULER_ATTEMPT\" >> \"$WITNESS\"\n[ -f \"$HEALED\" ] && exit 0\nexit 3",
                ScheduleSpec.now(),
                j -> j.env(Map.of("WITNESS", witness.toString(), "HEALED", healed.toString()))
                        .maxAttempts(1));

        await().atMost(Duration.ofSeconds(20))
                .until(() -> p.deadLetters.list(OWNER, "DEAD", null, null).items().stream()
                        .anyMatch(v -> v.jobId().equals(job.id())));
        RunView dead = p.deadLetters.list(OWNER, "DEAD", null, null).items().get(0);
        assertThat(dead.attempt()).isEqualTo(1);
        assertThat(dead.maxAttempts()).isEqualTo(1);
        assertThat(dead.error()).isEqualTo("exited with code 3");
        assertThat(lines(witness)).containsExactly("1");

        // The binary now succeeds; the retry gets a fresh attempt (maxAttempts 1 + the job's 1).
        Files.createFile(healed);
        RunView retried = p.deadLetters.retry(OWNER, job.id(), dead.runId());
        assertThat(retried.state()).isIn("QUEUED", "RUNNING", "SUCCEEDED");
        assertThat(retried.maxAttempts()).isEqualTo(2);

        await().atMost(Duration.ofSeconds(20))
                .until(() -> Fixture.run(p, job.id(), dead.runId()).state() == RunState.SUCCEEDED);
        Run r = Fixture.run(p, job.id(), dead.runId());
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.exitCode()).isZero();
        assertThat(r.error()).isNull();
        assertThat(lines(witness)).containsExactly("1", "2");
        assertThat(p.deadLetters.list(OWNER, "DEAD", null, null).items()).isEmpty();

        // Retrying a run that is not DEAD (or does not exist) is refused and writes nothing.
        assertThatThrownBy(() -> p.deadLetters.retry(OWNER, job.id(), dead.runId()))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> {
                    ValidationException v = (ValidationException) e;
                    assertThat(v.kind()).isEqualTo(Rejection.CONFLICT);
                    assertThat(v.errors().get(0).field()).isEqualTo("runId");
                });
        assertThat(Fixture.run(p, job.id(), dead.runId()).state()).isEqualTo(RunState.SUCCEEDED);
        assertThatThrownBy(() -> p.deadLetters.retry(OWNER, job.id(), "run_nope"))
                .isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> p.deadLetters.retry(OWNER, "job_nope", dead.runId()))
                .isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> p.deadLetters.retry("someone-else", job.id(), dead.runId()))
                .isInstanceOf(NotFoundException.class);
    }
}
