package dev.punctual.core.run;

import static dev.punctual.core.infra.Items.instant;
import static dev.punctual.core.infra.Items.n;
import static dev.punctual.core.infra.Items.s;
import static dev.punctual.core.run.RunItems.ATTEMPT;
import static dev.punctual.core.run.RunItems.ERROR;
import static dev.punctual.core.run.RunItems.EXIT_CODE;
import static dev.punctual.core.run.RunItems.FINISHED_AT;
import static dev.punctual.core.run.RunItems.GIVEN_BACK;
import static dev.punctual.core.run.RunItems.LAUNCHED_AT;
import static dev.punctual.core.run.RunItems.LEASE_EXPIRY;
import static dev.punctual.core.run.RunItems.LEASE_OWNER;
import static dev.punctual.core.run.RunItems.LOG;
import static dev.punctual.core.run.RunItems.LOG_KEY;
import static dev.punctual.core.run.RunItems.MAX_ATTEMPTS;
import static dev.punctual.core.run.RunItems.OCCURRENCE;
import static dev.punctual.core.run.RunItems.PAST;
import static dev.punctual.core.run.RunItems.QUEUED_AT;
import static dev.punctual.core.run.RunItems.REDRIVEN_AT;
import static dev.punctual.core.run.RunItems.SCHEDULED_AT;
import static dev.punctual.core.run.RunItems.STARTED_AT;
import static dev.punctual.core.run.RunItems.STATE;
import static dev.punctual.core.run.RunItems.UPDATED_AT;
import static dev.punctual.core.run.RunItems.WAITING;
import static dev.punctual.core.run.RunRepository.MAX_GIVE_BACKS;
import static dev.punctual.core.run.RunRepository.deadPartition;
import static dev.punctual.core.run.RunRepository.dueBound;

import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import dev.punctual.core.time.TimeBuckets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How a {@link Change} becomes one conditional write of a run's item, which {@link RunRepository} applies alone, in
 * a batch or in a transaction: the row of its {@link Transition} (the states it may start from, its fence, its
 * due-index entry, its TTL), then what each transition writes besides. A {@link RunWrite} gathers the clauses.
 */
final class ChangeWrites {
    private final TableSpec table;
    private final TimeBuckets buckets;
    private final Settings settings;

    ChangeWrites(Resources resources, TimeBuckets buckets, Settings settings) {
        this.table = resources.runs();
        this.buckets = buckets;
        this.settings = settings;
    }

    /** The one conditional write a change is: the transition's row, then what it writes besides. */
    RunWrite compose(Change c) {
        Transition t = c.transition();
        RunWrite w = new RunWrite(table.name(), RunItems.key(c.jobId(), c.runId()));
        switch (t.fence()) {
            case NONE -> w.require(stateCondition(t, w, c.now()));
            case SEEN_ATTEMPT -> w.require(stateCondition(t, w, c.now())).require(attemptIs(w, c));
            case SEEN_STATE_AND_ATTEMPT -> {
                RunState seen = c.seen().state();
                if (!t.allows(seen, true) && !t.allows(seen, false)) {
                    throw new IllegalArgumentException(t + " does not start from " + seen);
                }
                // The state read, whichever of the transition's it is: the write only moves the index entry, and
                // loses if anyone moved the run on since.
                w.require(w.name(STATE) + " = " + w.value(s(seen.name()))).require(attemptIs(w, c));
            }
            case OWN_ATTEMPT ->
                w.require(stateCondition(t, w, c.now()))
                        .require(attemptIs(w, c))
                        .require(w.name(LEASE_OWNER) + " = " + w.value(s(c.executorId())));
            case DUE_AND_ATTEMPTS_LEFT -> {
                // maxAttempts bounds the attempts that start: an attempt whose executor died without an outcome
                // counted too, and with none left the executor ends the run instead (LostClaims.lostRun).
                String max = w.name(MAX_ATTEMPTS);
                String attempt = w.name(ATTEMPT);
                w.require(w.name(SCHEDULED_AT) + " <= " + w.value(s(dueBound(c.now()))))
                        .require("attribute_not_exists(" + max + ") OR " + attempt + " < " + max)
                        .require(stateCondition(t, w, c.now()));
            }
        }
        t.to().ifPresent(to -> {
            w.set(STATE, s(to.name()));
            if (!t.fromAbsent()) {
                w.set(UPDATED_AT, instant(c.now()));
            }
        });
        if (t.index() != Transition.Index.UNCHANGED && t.index() != Transition.Index.NONE) {
            t.attention(c.run(), c.now(), settings)
                    .ifPresentOrElse(
                            at -> w.set(Resources.DUE_SHARD, s(buckets.partitionFor(at, c.jobId(), c.runId())))
                                    .set(Resources.DUE_SORT, s(TimeBuckets.sortKey(at, c.jobId(), c.runId()))),
                            () -> w.remove(Resources.DUE_SHARD, Resources.DUE_SORT));
        }
        if (t.startsTtl()) {
            w.set(
                    Resources.EXPIRES_AT,
                    n(c.now().plus(settings.storage().retention()).getEpochSecond()));
        }
        if (t.endsLease()) {
            w.remove(LEASE_EXPIRY);
        }
        if (t.to().filter(to -> to == RunState.DEAD).isPresent()) {
            // Into the sparse dead-letter index, newest last by finish time.
            w.set(Resources.OWNER_STATE, s(deadPartition(c.seen().owner())))
                    .set(Resources.FINISHED_SORT, s(TimeBuckets.sortKey(c.now(), c.jobId(), c.runId())));
        }
        effects(c, w);
        return w;
    }

    private static String attemptIs(RunWrite w, Change c) {
        return w.name(ATTEMPT) + " = " + w.value(n(c.fencingAttempt()));
    }

    /** What each transition writes beyond its row. */
    private static void effects(Change c, RunWrite w) {
        Instant now = c.now();
        switch (c.transition()) {
            case SCHEDULE, SCHEDULE_OVER_CANCELLED, RESEND, LOOK_AFTER_LEASE -> {}
            case RESCHEDULE ->
                w.set(SCHEDULED_AT, instant(c.seen().scheduledAt()))
                        .set(OCCURRENCE, instant(c.seen().occurrence()))
                        .set(MAX_ATTEMPTS, n(c.seen().maxAttempts()));
            case MARK_QUEUED, ENQUEUE -> w.set(QUEUED_AT, instant(now));
            // attempt + 1 is the new fencing token. A new attempt has no log yet: the previous attempt's must not
            // pass for this one's if its upload fails.
            case CLAIM ->
                w.add(ATTEMPT, 1)
                        .set(LEASE_OWNER, s(c.executorId()))
                        .set(LEASE_EXPIRY, n(c.leaseExpiry().toEpochMilli()))
                        .remove(EXIT_CODE, FINISHED_AT, ERROR, LOG_KEY, LOG, LAUNCHED_AT, STARTED_AT, WAITING);
            case HEARTBEAT -> w.set(LEASE_EXPIRY, n(c.leaseExpiry().toEpochMilli()));
            // The start is the launch's (a run is claimed up to CLAIM_AHEAD before its instant, and launched at it);
            // a claimed run not launched yet has none.
            case LAUNCH ->
                w.set(LEASE_EXPIRY, n(c.leaseExpiry().toEpochMilli()))
                        .set(LAUNCHED_AT, instant(now))
                        .set(STARTED_AT, instant(now));
            case SUCCEED, FAIL, RELEASE, DIE -> {
                if (c.startedAt() != null) {
                    // The binary's start: the launch wrote the same already, unless the binary ended before its
                    // launch was written, when the outcome is the only write of it (Settlement.record).
                    w.set(LAUNCHED_AT, instant(c.startedAt())).set(STARTED_AT, instant(c.startedAt()));
                }
                if (c.transition() == Transition.FAIL || c.transition() == Transition.RELEASE) {
                    // A retry follows, whose claim replaces these facts: kept as the attempt's history.
                    w.set(
                            PAST + c.fencingAttempt(),
                            RunItems.past(c.startedAt(), now, c.exitCode(), c.error(), c.executorId()));
                }
                w.set(FINISHED_AT, instant(now))
                        .setOrRemove(EXIT_CODE, c.exitCode() == null ? null : n(c.exitCode()))
                        .setOrRemove(ERROR, c.error() == null ? null : s(c.error()));
                if (c.logKey() != null) {
                    w.set(LOG_KEY, s(c.logKey())).remove(LOG);
                } else if (c.log() != null) {
                    w.set(LOG, s(c.log())).remove(LOG_KEY);
                }
                if (c.transition() == Transition.RELEASE) {
                    // A release does not use an attempt up.
                    w.add(MAX_ATTEMPTS, 1);
                }
            }
            case GIVE_BACK -> {
                // At most MAX_GIVE_BACKS a run: a binary that brings its executor down before its launch is
                // written, every time (one that exhausts the host's memory, say), would otherwise be given back
                // and run again until the run's maxRunAge. Past them the claim that lost ends the run DEAD.
                String given = w.name(GIVEN_BACK);
                w.require("attribute_not_exists(" + w.name(LAUNCHED_AT) + ")")
                        .require("attribute_not_exists(" + given + ") OR " + given + " < " + w.value(n(MAX_GIVE_BACKS)))
                        .add(MAX_ATTEMPTS, 1)
                        .count(GIVEN_BACK)
                        .set(ERROR, s(c.error()));
            }
            case CANCEL_SCHEDULED -> w.set(ERROR, s(c.error()));
            // The claim is undone as well as ended: its binary never started, so the run reads as one that was
            // never claimed (attempt, start and executor as before it). Safe for fencing: the run is terminal.
            case WITHDRAW ->
                w.add(ATTEMPT, -1)
                        .set(FINISHED_AT, instant(now))
                        .set(ERROR, s(c.error()))
                        .remove(STARTED_AT, LEASE_OWNER, LAUNCHED_AT);
            case CANCEL_UNSTARTED, SKIP_OVERLAPPING, SKIP_MISSED, DEAD_LETTER ->
                w.set(FINISHED_AT, instant(now)).set(ERROR, s(c.error()));
            // Out of the dead-letter index and without its TTL; the attempt number is kept: the next claim
            // continues it, so it stays a fencing token. Its give-backs start afresh with its new attempts.
            case REDRIVE -> {
                w.set(MAX_ATTEMPTS, n(c.maxAttempts()))
                        .set(QUEUED_AT, instant(now))
                        .set(REDRIVEN_AT, instant(now))
                        .remove(Resources.OWNER_STATE, Resources.FINISHED_SORT, Resources.EXPIRES_AT, GIVEN_BACK);
                Run seen = c.run();
                if (seen != null) {
                    // The dead attempt's facts, which the next claim replaces, join its history; the oldest past
                    // RunHistory.KEPT are dropped, so retries by hand cannot grow the item without bound.
                    w.set(
                            PAST + seen.attempt(),
                            RunItems.past(
                                    seen.startedAt(),
                                    seen.finishedAt(),
                                    seen.exitCode(),
                                    seen.error(),
                                    seen.leaseOwner()));
                    List<RunHistory.PastAttempt> kept = seen.history().attempts();
                    for (int i = 0; i < kept.size() + 1 - RunHistory.KEPT; i++) {
                        if (kept.get(i).attempt() != seen.attempt()) {
                            w.remove(PAST + kept.get(i).attempt());
                        }
                    }
                }
            }
            case WAIT -> w.set(WAITING, s(c.error()));
            case UNINDEX -> w.require("attribute_exists(" + w.name(Resources.DUE_SHARD) + ")");
        }
    }

    /**
     * The states the transition may start from: no item, one of its states, or RUNNING under an expired lease
     * (the executor died or froze).
     */
    private static String stateCondition(Transition t, RunWrite w, Instant now) {
        List<String> any = new ArrayList<>();
        if (t.fromAbsent()) {
            any.add("attribute_not_exists(" + w.name(Resources.RUN_ID) + ")");
        }
        String st = w.name(STATE);
        if (t.from().size() == 1) {
            any.add(st + " = " + w.value(s(t.from().iterator().next().name())));
        } else if (!t.from().isEmpty()) {
            any.add(st + " IN ("
                    + Arrays.stream(RunState.values())
                            .filter(t.from()::contains)
                            .map(state -> w.value(s(state.name())))
                            .collect(Collectors.joining(", "))
                    + ")");
        }
        if (t.fromExpiredLease()) {
            any.add(st + " = " + w.value(s(RunState.RUNNING.name())) + " AND " + w.name(LEASE_EXPIRY) + " < "
                    + w.value(n(now.toEpochMilli())));
        }
        return any.size() == 1
                ? any.get(0)
                : any.stream().map(a -> a.contains(" AND ") ? "(" + a + ")" : a).collect(Collectors.joining(" OR "));
    }
}
