package dev.punctual.core.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.config.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every transition from every state, without DynamoDB; and the table ARCHITECTURE shows is this one. */
class TransitionTest {
    /**
     * The expected matrix, written out independently of {@link Transition}: for each transition, the starting
     * points it allows. "-" is no item; "RUNNING*" is RUNNING under an expired lease (RUNNING alone: a live one).
     */
    private static final Map<Transition, String> ALLOWED = Map.ofEntries(
            Map.entry(Transition.SCHEDULE, "-"),
            Map.entry(Transition.ENQUEUE, "-"),
            Map.entry(Transition.SCHEDULE_OVER_CANCELLED, "- CANCELLED"),
            Map.entry(Transition.RESCHEDULE, "SCHEDULED"),
            Map.entry(Transition.MARK_QUEUED, "SCHEDULED"),
            Map.entry(Transition.CLAIM, "SCHEDULED QUEUED FAILED RUNNING*"),
            Map.entry(Transition.HEARTBEAT, "RUNNING RUNNING*"),
            Map.entry(Transition.LAUNCH, "RUNNING RUNNING*"),
            Map.entry(Transition.SUCCEED, "RUNNING RUNNING*"),
            Map.entry(Transition.FAIL, "RUNNING RUNNING*"),
            Map.entry(Transition.RELEASE, "RUNNING RUNNING*"),
            Map.entry(Transition.GIVE_BACK, "RUNNING*"),
            Map.entry(Transition.DIE, "RUNNING RUNNING*"),
            Map.entry(Transition.CANCEL_SCHEDULED, "SCHEDULED"),
            Map.entry(Transition.CANCEL_UNSTARTED, "SCHEDULED QUEUED FAILED RUNNING*"),
            Map.entry(Transition.WITHDRAW, "RUNNING RUNNING*"),
            Map.entry(Transition.SKIP_OVERLAPPING, "SCHEDULED QUEUED FAILED"),
            Map.entry(Transition.SKIP_MISSED, "SCHEDULED"),
            Map.entry(Transition.DEAD_LETTER, "QUEUED FAILED RUNNING*"),
            Map.entry(Transition.REDRIVE, "DEAD"),
            Map.entry(Transition.RESEND, "QUEUED FAILED RUNNING*"),
            Map.entry(Transition.LOOK_AFTER_LEASE, "RUNNING RUNNING*"),
            Map.entry(Transition.WAIT, "SCHEDULED QUEUED FAILED"),
            Map.entry(Transition.UNINDEX, "SUCCEEDED DEAD CANCELLED SKIPPED"));

    private static final Settings SETTINGS = Settings.builder().build();
    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

    /** Every starting point: no item, each state, and RUNNING under an expired lease. */
    private static List<String> startingPoints() {
        List<String> all = new ArrayList<>(List.of("-"));
        for (RunState s : RunState.values()) {
            all.add(s.name());
        }
        all.add("RUNNING*");
        return all;
    }

    private static boolean allows(Transition t, String point) {
        return switch (point) {
            case "-" -> t.allows(null, false);
            case "RUNNING*" -> t.allows(RunState.RUNNING, false);
            default -> t.allows(RunState.valueOf(point), true);
        };
    }

    @Test
    void everyTransitionFromEveryStateIsAllowedExactlyWhereTheMatrixSays() {
        assertThat(ALLOWED.keySet())
                .as("the matrix covers every transition")
                .containsExactlyInAnyOrder(Transition.values());
        List<String> wrong = new ArrayList<>();
        for (Transition t : Transition.values()) {
            List<String> expected = List.of(ALLOWED.get(t).split(" ", -1));
            for (String point : startingPoints()) {
                if (allows(t, point) != expected.contains(point)) {
                    wrong.add(t + " from " + point + ": allows " + allows(t, point));
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void terminalTransitionsStartTheTtlAndLeaveTheIndex() {
        for (Transition t : Transition.values()) {
            boolean terminal = t.to().map(RunState::terminal).orElse(false);
            // CANCEL_SCHEDULED's write sets no TTL today (see Transition#startsTtl).
            assertThat(t.startsTtl())
                    .as("%s starts the TTL", t)
                    .isEqualTo(terminal && t != Transition.CANCEL_SCHEDULED);
            if (terminal) {
                assertThat(t.index()).as("%s leaves the index", t).isEqualTo(Transition.Index.REMOVED);
            }
        }
    }

    /** A RUNNING run leased to "ex" until 30s from now, claimed now; {@code queuedAt} null if never marked QUEUED. */
    private static Run running(Instant queuedAt) {
        return new Run(
                "job_a",
                "r",
                "o",
                NOW,
                RunState.RUNNING,
                1,
                3,
                "ex",
                NOW.plusSeconds(30),
                null,
                NOW,
                null,
                null,
                null,
                null,
                NOW,
                NOW,
                queuedAt,
                null,
                null,
                null,
                null);
    }

    @Test
    void whenARunNextNeedsTheSweeper() {
        Run due = Run.scheduled("job_a", "r", "o", NOW.plusSeconds(90), 3, NOW);
        assertThat(Transition.SCHEDULE.attention(due, NOW, SETTINGS)).contains(NOW.plusSeconds(90));
        // Created already due (a catch-up, a backfill): indexed at its creation, not in a bucket left behind.
        Run late = Run.scheduled("job_a", "r", "o", NOW.minusSeconds(600), 3, NOW);
        assertThat(Transition.SCHEDULE.attention(late, NOW, SETTINGS)).contains(NOW);
        Duration requeue = SETTINGS.sweep().requeueAfter();
        assertThat(Transition.MARK_QUEUED.attention(null, NOW, SETTINGS))
                .contains(NOW.plus(SETTINGS.sweep().lookahead()).plus(requeue));
        assertThat(Transition.RESEND.attention(null, NOW, SETTINGS))
                .contains(NOW.plus(SETTINGS.sweep().lookahead()).plus(requeue));
        assertThat(Transition.FAIL.attention(null, NOW, SETTINGS))
                .contains(NOW.plus(SETTINGS.runs().retryCap()).plus(requeue));
        Run leased = running(null);
        assertThat(Transition.LOOK_AFTER_LEASE.attention(leased, NOW, SETTINGS))
                .contains(NOW.plusSeconds(30).plus(requeue));
        // leased was claimed straight from SCHEDULED (never marked QUEUED, no queuedAt).
        Run marked = running(NOW);
        assertThat(Transition.SUCCEED.attention(marked, NOW, SETTINGS)).isEmpty();
        assertThat(Transition.DIE.attention(marked, NOW, SETTINGS)).isEmpty();
        assertThat(Transition.SUCCEED.attention(leased, NOW, SETTINGS))
                .as("its executor finishes a run claimed straight from SCHEDULED: kept at now for the next occurrence")
                .contains(NOW);
        assertThat(Transition.DIE.attention(leased, NOW, SETTINGS)).contains(NOW);
        assertThat(Transition.UNINDEX.attention(leased, NOW, SETTINGS)).isEmpty();
        assertThat(Transition.DEAD_LETTER.attention(leased, NOW, SETTINGS))
                .as("only an executor's own outcome keeps the entry")
                .isEmpty();
    }

    @Test
    void architectureShowsThisTable() throws Exception {
        String doc = Files.readString(Path.of("..", "ARCHITECTURE.md"));
        assertThat(doc)
                .as("ARCHITECTURE.md's transition table, as Transition.markdown() renders it")
                .contains(Transition.markdown());
    }
}
