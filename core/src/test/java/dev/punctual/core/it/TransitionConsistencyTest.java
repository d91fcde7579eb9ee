package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The repository's conditional writes agree with the transition table: for every transition and every starting
 * point (no item, each state, RUNNING under an expired lease), the write wins on DynamoDB Local exactly where
 * {@link Transition#allows} says. The fences other than the state are given their passing values (the executor's
 * own attempt, the attempt read), so the state alone decides.
 */
class TransitionConsistencyTest {
    /**
     * Their write fences on the state the sweeper read, whatever it is; which states they are for is the
     * dispatcher's choice (it re-sends QUEUED, FAILED and expired RUNNING runs, and looks again at live ones).
     */
    private static final Set<Transition> FENCED_ON_WHAT_WAS_READ =
            EnumSet.of(Transition.RESEND, Transition.LOOK_AFTER_LEASE);

    private static final String OWNER = "local";
    private static final String EXECUTOR = "ex";

    private Punctual p;
    private Instant now;
    private String jobId;
    private int cases;

    @BeforeEach
    void setUp() {
        now = Instant.parse("2030-01-01T10:00:00Z");
        p = Fixture.stack(TestStack.isolatedSettings().build(), new SettableClock(now));
        jobId = "job_transitions" + System.nanoTime();
    }

    /** A run of its own per case, placed at {@code point}: "-" (no item), a state, or "RUNNING*" (lease expired). */
    private Run place(String point) {
        Instant occurrence = now.minusSeconds(10).plusMillis(cases++);
        Run run = Run.scheduled(jobId, RunIds.forOccurrence(occurrence), OWNER, occurrence, 3, now);
        if (point.equals("-")) {
            return run;
        }
        assertThat(p.tx.write(List.of(p.runs.insertScheduled(run))).won()).isTrue();
        RunState state = point.equals("RUNNING*") ? RunState.RUNNING : RunState.valueOf(point);
        int attempt = state == RunState.SCHEDULED ? 0 : 1;
        long lease = (point.equals("RUNNING*") ? now.minusSeconds(60) : now.plusSeconds(60)).toEpochMilli();
        Fixture.dynamo()
                .updateItem(u -> u.tableName(p.resources.runs().name())
                        .key(Map.of("jobId", AttributeValue.fromS(jobId), "runId", AttributeValue.fromS(run.runId())))
                        .updateExpression("SET #st = :st, #a = :a, #lo = :lo, #le = :le")
                        .expressionAttributeNames(
                                Map.of("#st", "state", "#a", "attempt", "#lo", "leaseOwner", "#le", "leaseExpiry"))
                        .expressionAttributeValues(Map.of(
                                ":st", AttributeValue.fromS(state.name()),
                                ":a", AttributeValue.fromN(Integer.toString(attempt)),
                                ":lo", AttributeValue.fromS(EXECUTOR),
                                ":le", AttributeValue.fromN(Long.toString(lease)))));
        return p.runs.get(jobId, run.runId()).orElseThrow();
    }

    private boolean tx(TransactWriteItem item) {
        return p.tx.write(List.of(item)).won();
    }

    /** Takes {@code t} through the repository, as its callers do; whether the write won. */
    private boolean take(Transition t, Run run, boolean exists) {
        String id = run.runId();
        Instant exp = now.plus(Duration.ofDays(7));
        return switch (t) {
            case SCHEDULE -> tx(p.runs.insertScheduled(run));
            case SCHEDULE_OVER_CANCELLED -> tx(p.runs.insertScheduledOverCancelled(run));
            case RESCHEDULE ->
                tx(p.runs.reschedule(Run.scheduled(jobId, id, OWNER, run.occurrence(), now.plusSeconds(5), 3, now)));
            case MARK_QUEUED -> tx(p.runs.markQueued(jobId, id, now));
            case CLAIM -> tx(p.runs.claim(jobId, id, "ex-2", now.plusSeconds(60), now));
            case HEARTBEAT -> p.runs.heartbeat(jobId, id, 1, EXECUTOR, now.plusSeconds(60), now);
            case SUCCEED -> p.runs.finish(jobId, id, 1, EXECUTOR, RunState.SUCCEEDED, 0, null, null, now, exp);
            case FAIL -> p.runs.finish(jobId, id, 1, EXECUTOR, RunState.FAILED, 1, "failed", null, now, exp);
            case RELEASE ->
                p.runs.finish(
                        jobId, id, 1, EXECUTOR, RunState.FAILED, null, "released", null, now, exp, OWNER, false, true);
            // Placed runs were never launched.
            case GIVE_BACK -> exists && p.runs.giveBack(run, now);
            case DIE -> p.runs.finish(jobId, id, 1, EXECUTOR, RunState.DEAD, 1, "dead", null, now, exp);
            case CANCEL_SCHEDULED -> tx(p.runs.cancelScheduled(jobId, id, now));
            case CANCEL_UNSTARTED -> p.runs.cancelUnstarted(jobId, id, "job deleted", now, exp);
            case SKIP_OVERLAPPING -> p.runs.endUnstarted(jobId, id, RunState.SKIPPED, "overlap", now, exp);
            case SKIP_MISSED -> tx(p.runs.skipScheduled(jobId, id, "missed", now, exp));
            // Both read the run first: with no item there is nothing to take.
            case DEAD_LETTER -> exists && p.runs.markDeadLettered(run, "dead-lettered", now, exp);
            case REDRIVE -> exists && p.runs.redrive(jobId, id, run.attempt(), 5, now);
            case UNINDEX -> p.runs.unindex(jobId, id);
            case RESEND, LOOK_AFTER_LEASE -> throw new IllegalArgumentException(t + " is not state-gated");
        };
    }

    @Test
    void everyWriteWinsExactlyWhereTheTableAllowsIt() {
        List<String> points = new ArrayList<>(List.of("-"));
        for (RunState s : RunState.values()) {
            points.add(s.name());
        }
        points.add("RUNNING*");
        List<String> disagreements = new ArrayList<>();
        int checked = 0;
        for (Transition t : Transition.values()) {
            if (FENCED_ON_WHAT_WAS_READ.contains(t)) {
                continue;
            }
            for (String point : points) {
                Run run = place(point);
                boolean exists = !point.equals("-");
                boolean allowed =
                        point.equals("-") ? t.allows(null, false) : t.allows(run.state(), !point.equals("RUNNING*"));
                boolean won = take(t, run, exists);
                checked++;
                if (won != allowed) {
                    disagreements.add(t + " from " + point + ": the table " + (allowed ? "allows" : "refuses")
                            + " it, the repository's write " + (won ? "won" : "lost"));
                }
            }
        }
        assertThat(checked).isEqualTo((Transition.values().length - FENCED_ON_WHAT_WAS_READ.size()) * points.size());
        assertThat(disagreements).isEmpty();
    }
}
