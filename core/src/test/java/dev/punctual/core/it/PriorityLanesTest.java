package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.service.BackfillRequest;
import dev.punctual.core.service.BackfillView;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.RunView;
import dev.punctual.core.service.TriggerRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Lanes on the emulators: where a run's message goes, and which lane an executor serves first. */
class PriorityLanesTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    /** Messages of a lane's queue: visible, delayed or in flight. */
    private static long messages(Punctual p, Priority lane) {
        RunQueue.Depth d = p.queues.lane(lane).depth();
        return d.visible() + d.delayed() + d.inFlight();
    }

    @Test
    void aRunGoesToItsJobsLaneOrToTheOneItsTriggerNamesAndIsDeletedFromThere() {
        Punctual p = Fixture.realTimeStack();
        Instant later = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        JobView job = Fixture.createJob(p, "low", "true", Fixture.once(later), j -> j.priority("low"));
        assertThat(job.priority()).isEqualTo("low");

        RunView own = p.lifecycle.trigger(OWNER, job.id());
        RunView high = p.lifecycle.trigger(OWNER, job.id(), new TriggerRequest(null, null, "HIGH"));
        assertThat(own.priority()).isNull();
        assertThat(high.priority()).isEqualTo("high");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> messages(p, Priority.LOW) == 1 && messages(p, Priority.HIGH) == 1);
        assertThat(messages(p, Priority.NORMAL)).isZero();

        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> List.of(own, high).stream()
                        .allMatch(
                                r -> Fixture.run(p, job.id(), r.runId()).state().terminal()));
        assertThat(List.of(own, high))
                .allSatisfy(r -> assertThat(
                                Fixture.run(p, job.id(), r.runId()).state().name())
                        .isEqualTo("SUCCEEDED"));
        // Each start's lateness is recorded in its lane.
        for (String lane : List.of("low", "high")) {
            assertThat(p.meters
                            .registry()
                            .get(Meters.START_LATENESS)
                            .tag(Meters.LANE, lane)
                            .timer()
                            .count())
                    .as(lane)
                    .isEqualTo(1);
        }
        // Deleted from the queue each came from: a delete sent to another lane's queue would leave it in flight
        // until its lease (6 s) ran out, then visible again.
        await().atMost(Duration.ofSeconds(5))
                .until(() -> messages(p, Priority.LOW) == 0 && messages(p, Priority.HIGH) == 0);
    }

    @Test
    void anUnknownLaneIsRefusedNamingTheFieldAndNothingIsSent() {
        Punctual p = Fixture.realTimeStack();
        Instant later = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        assertThatThrownBy(() -> Fixture.createJob(p, "urgent", "true", Fixture.once(later), j -> j.priority("urgent")))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).errors())
                        .extracting(FieldError::field)
                        .containsExactly("priority"));
        JobView job = Fixture.createJob(p, "normal", "true", Fixture.once(later), j -> j);
        assertThat(job.priority()).isEqualTo("normal");
        assertThatThrownBy(() -> p.lifecycle.trigger(OWNER, job.id(), new TriggerRequest(null, null, "asap")))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).errors())
                        .extracting(FieldError::field)
                        .containsExactly("priority"));
        assertThat(Priority.values())
                .allSatisfy(lane -> assertThat(messages(p, lane)).isZero());
    }

    @Test
    void aBackfillsRunsKeepTheLaneItNamesAndABadOneIsRefused() {
        Punctual p = Fixture.realTimeStack();
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Instant start = now.minus(Duration.ofHours(3));
        JobView job = Fixture.createJob(
                p, "hourly", "true", Fixture.interval(Duration.ofHours(1), start), j -> j.priority("high"));
        BackfillRequest bad =
                new BackfillRequest(start.toString(), now.minusSeconds(1).toString(), "later");
        assertThatThrownBy(() -> p.backfills.backfill(OWNER, job.id(), bad))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).errors())
                        .extracting(FieldError::field)
                        .containsExactly("priority"));

        BackfillView made = p.backfills.backfill(
                OWNER,
                job.id(),
                new BackfillRequest(start.toString(), now.minusSeconds(1).toString(), "low"));
        assertThat(made.created()).isNotEmpty();
        assertThat(made.created())
                .allSatisfy(runId -> assertThat(RunView.of(Fixture.run(p, job.id(), runId), null)
                                .priority())
                        .isEqualTo("low"));
    }

    /**
     * A backlog of low runs and a few high ones, all due before the executor (one slot) starts: the high ones start
     * among the first, and the low ones all run. In one queue, in the order sent, the high ones would start last.
     */
    @Test
    void highRunsStartAheadOfALowBacklogAndTheLowOnesStillRun() {
        Path witness = Fixture.witness(tmp);
        Punctual p =
                Fixture.stack(Fixture.realTimeSettings().executorConcurrency(1).build(), java.time.Clock.systemUTC());
        Instant later = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        String script = "echo \"$PRIORITY $(date +%s%N)\" >> \"$WITNESS\"";
        JobView low = Fixture.createJob(
                p,
                "low",
                script,
                Fixture.once(later),
                j -> j.priority("low").env(Map.of("WITNESS", witness.toString(), "PRIORITY", "low")));
        JobView high = Fixture.createJob(
                p,
                "high",
                script,
                Fixture.once(later),
                j -> j.priority("high").env(Map.of("WITNESS", witness.toString(), "PRIORITY", "high")));
        int lows = 24;
        int highs = 3;
        List<RunView> runs = new ArrayList<>();
        for (int i = 0; i < lows; i++) {
            runs.add(p.lifecycle.trigger(OWNER, low.id()));
        }
        for (int i = 0; i < highs; i++) {
            runs.add(p.lifecycle.trigger(OWNER, high.id()));
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> messages(p, Priority.LOW) == lows && messages(p, Priority.HIGH) == highs);

        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        await().atMost(Duration.ofSeconds(120))
                .until(() -> Fixture.lines(witness).size() == lows + highs);

        List<String> order = Fixture.lines(witness).stream()
                .map(l -> l.split(" "))
                .sorted(Comparator.comparingLong(f -> Long.parseLong(f[1])))
                .map(f -> f[0])
                .toList();
        assertThat(order.lastIndexOf("high"))
                .as("where the last high run started, of %d (0 first): %s", lows + highs, order)
                .isLessThan(8);
        assertThat(order.stream().filter("low"::equals)).hasSize(lows);
    }
}
