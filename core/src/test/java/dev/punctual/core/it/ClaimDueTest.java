package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static dev.punctual.core.it.Fixture.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.exec.RunWorker;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The claim checks that the run is due, whatever the message says: an early or forged message does not start a
 * run due in an hour, and the run still starts at its due time.
 */
class ClaimDueTest extends WorkerTest {
    private static final Duration LEASE = Duration.ofSeconds(60);

    private static Transactions.Outcome claim(Punctual p, String jobId, String runId, String executor, Instant t) {
        return p.tx.write(List.of(
                p.jobs.conditionRunnable(jobId),
                p.runs.write(Change.of(Transition.CLAIM, jobId, runId, t).withLease(executor, t.plus(LEASE)))));
    }

    @Test
    void theClaimsConditionRefusesARunNotYetDueAndGrantsItFromItsDueSecondOn() {
        Instant now = Instant.parse("2030-01-01T10:00:00Z");
        SettableClock clock = new SettableClock(now);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        Instant due = now.plus(Duration.ofHours(1)).plusMillis(500);
        var job = Fixture.insertOnceJob(p, due, now);

        Transactions.Outcome early = claim(p, job.id(), job.pendingRunId(), "ex-a", now);
        assertThat(early.won()).isFalse();
        assertThat(early.failed(1))
                .as("the run's condition failed, not the job's")
                .isTrue();
        assertThat(early.failed(0)).isFalse();
        assertThat(Items.str(early.oldItem(1), "scheduledAt")).isEqualTo(due.toString());
        assertThat(claim(p, job.id(), job.pendingRunId(), "ex-a", due.minusMillis(1501))
                        .won())
                .as("two seconds before the due second")
                .isFalse();
        Run untouched = Fixture.run(p, job.id(), job.pendingRunId());
        assertThat(untouched.state()).isEqualTo(RunState.SCHEDULED);
        assertThat(untouched.attempt()).isZero();

        // From the start of the second before its due second (at most CLAIM_TOLERANCE early) the claim wins; the
        // executor then waits out the rest before the binary starts.
        Instant secondBefore = due.truncatedTo(ChronoUnit.SECONDS).minusSeconds(1);
        assertThat(claim(p, job.id(), job.pendingRunId(), "ex-a", secondBefore).won())
                .isTrue();
        assertThat(Fixture.run(p, job.id(), job.pendingRunId()).attempt()).isEqualTo(1);
    }

    @Test
    void anEarlyMessageForARunDueInAnHourDoesNotStartItAndTheRunStartsAtItsDueTime() throws Exception {
        Instant start = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        SettableClock clock = new SettableClock(start);
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        RunWorker worker = p.worker("ex-1", tmp.resolve("ex-1"), timer);
        Path witness = Fixture.witness(tmp);
        Instant due = start.plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        String binaryId =
                Fixture.uploadBinary(p, OWNER, Fixture.script("echo \"ran $SCHEDULER_ATTEMPT\" >> " + "\"$WITNESS\""));
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("due in an hour", binaryId, Fixture.once(due))
                        .env(Map.of("WITNESS", witness.toString()))
                        .build());
        String runId = Fixture.runsOf(p, job.id()).get(0).runId();
        assertThat(Fixture.queueCounts(p).total())
                .as("beyond the lookahead: nothing sent yet")
                .isZero();

        // A message that claims the run is due now: forged, or sent by someone with a clock an hour ahead.
        p.queue.sendBatch(List.of(new RunMessage(job.id(), runId, start)), start);
        Delivery forged = receiveOne(p, 1);
        assertThat(worker.handle(forged)).isEqualTo(RunWorker.Outcome.EARLY);

        Run waiting = Fixture.run(p, job.id(), runId);
        assertThat(waiting.state()).isEqualTo(RunState.SCHEDULED);
        assertThat(waiting.attempt()).isZero();
        assertThat(waiting.startedAt()).isNull();
        assertThat(Fixture.lines(witness)).isEmpty();
        // Received with a one-second visibility, it would be back by now had the worker not hidden it until the run
        // is due; it is kept (not deleted), in flight.
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(4))
                .until(() -> Fixture.queueCounts(p).visible() == 0
                        && Fixture.queueCounts(p).inFlight() == 1);

        // At its due time the sweeper sends the run as usual, and it starts then.
        clock.set(due);
        assertThat(p.sweeper.sweep().sent()).isEqualTo(1);
        Delivery real = receiveOne(p, 60);
        assertThat(RunMessage.decode(real.body()).scheduledAt()).isEqualTo(due);
        assertThat(worker.handle(real)).isEqualTo(RunWorker.Outcome.SUCCEEDED);

        Run ran = Fixture.run(p, job.id(), runId);
        assertThat(ran.state()).isEqualTo(RunState.SUCCEEDED);
        assertThat(ran.attempt()).isEqualTo(1);
        assertThat(ran.startedAt()).isEqualTo(due);
        assertThat(lines(witness)).containsExactly("ran 1");
    }

    private static Delivery receiveOne(Punctual p, int visibilitySeconds) {
        List<Delivery> got = p.queues.receive(Priority.NORMAL, 1, 5, visibilitySeconds);
        assertThat(got).hasSize(1);
        return got.get(0);
    }
}
