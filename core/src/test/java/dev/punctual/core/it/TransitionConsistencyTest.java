package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

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

    private final Instant now = Instant.parse("2030-01-01T10:00:00Z");
    private final Punctual p = Fixture.stackAt(now);
    private final String jobId = "job_transitions" + System.nanoTime();
    private int cases;

    /** A run of its own per case, placed at {@code point}: "-" (no item), a state, or "RUNNING*" (lease expired). */
    private Run place(String point) {
        Instant occurrence = now.minusSeconds(10).plusMillis(cases++);
        Run run = Run.scheduled(jobId, RunIds.forOccurrence(occurrence), OWNER, occurrence, 3, now);
        if (point.equals("-")) {
            return run;
        }
        assertThat(p.tx.write(List.of(p.runs.create(Change.of(Transition.SCHEDULE, run, now))))
                        .won())
                .isTrue();
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

    /** Takes {@code t} through the repository, as its callers do; whether the write won. */
    private boolean take(Transition t, Run run, boolean exists) {
        String id = run.runId();
        Change c = switch (t) {
            case SCHEDULE, ENQUEUE, SCHEDULE_OVER_CANCELLED -> Change.of(t, run, now);
            case RESCHEDULE ->
                Change.of(t, Run.scheduled(jobId, id, OWNER, run.occurrence(), now.plusSeconds(5), 3, now), now);
            case CLAIM -> Change.of(t, jobId, id, now).withLease("ex-2", now.plusSeconds(60));
            // The executor's own attempt (placed runs were never launched).
            case HEARTBEAT, LAUNCH, SUCCEED, FAIL, RELEASE, DIE, WITHDRAW ->
                Change.of(t, run, now)
                        .withAttempt(1)
                        .withExecutor(EXECUTOR)
                        .withLease(EXECUTOR, now.plusSeconds(60))
                        .withError("outcome");
            case REDRIVE -> Change.of(t, run, now).withMaxAttempts(5);
            case GIVE_BACK, DEAD_LETTER -> Change.of(t, run, now).withError("why");
            case MARK_QUEUED, UNINDEX -> Change.of(t, jobId, id, now);
            case CANCEL_SCHEDULED, CANCEL_UNSTARTED, SKIP_OVERLAPPING, SKIP_MISSED, WAIT ->
                Change.of(t, jobId, id, now).withError("why");
            case RESEND, LOOK_AFTER_LEASE -> throw new IllegalArgumentException(t + " is not state-gated");
        };
        if (t.fromAbsent()) {
            return p.tx.write(List.of(p.runs.create(c))).won();
        }
        // Those that fence on the run as read have nothing to take where there is no item.
        if (!exists && t.fence() == Transition.Fence.SEEN_ATTEMPT) {
            return false;
        }
        RunRepository.Result r = p.runs.apply(c);
        if (!r.won() && exists) {
            // A lost write reports the run as it found it.
            assertThat(r.found()).as(t + " lost: what it found").isNotNull();
            assertThat(r.found().runId()).isEqualTo(id);
        }
        return r.won();
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
