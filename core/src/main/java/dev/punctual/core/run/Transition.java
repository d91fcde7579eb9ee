package dev.punctual.core.run;

import static dev.punctual.core.run.RunState.CANCELLED;
import static dev.punctual.core.run.RunState.DEAD;
import static dev.punctual.core.run.RunState.FAILED;
import static dev.punctual.core.run.RunState.QUEUED;
import static dev.punctual.core.run.RunState.RUNNING;
import static dev.punctual.core.run.RunState.SCHEDULED;
import static dev.punctual.core.run.RunState.SKIPPED;
import static dev.punctual.core.run.RunState.SUCCEEDED;

import dev.punctual.core.config.Settings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every way a run's item changes, as a closed set: the states each may start from, the state it ends in, what fences
 * it, where it leaves the run's due-index entry and whether it starts the TTL. {@link RunRepository} turns each into
 * one conditional write; ARCHITECTURE's transition table is this table ({@link #markdown}, checked by a test).
 *
 * <p>Every transition is a conditional write, so two writers racing on one run cannot both win: the loser sees what
 * the winner left and decides again from there.
 */
public enum Transition {
    /** A new occurrence; its item must not exist (two writers of one occurrence collide on its run id). */
    SCHEDULE(Set.of(), true, false, SCHEDULED, Fence.NONE, Index.AT_DUE),
    /**
     * A new occurrence whose message is already sent (a job created with its first run due soon): created QUEUED, as
     * {@link #MARK_QUEUED} leaves a run, so no mark is written after. Without a due-index entry: its message, sent
     * before it was written, is its way to an executor, which waits for a late write (RunWorker), so an entry that
     * would only notice a lost message would cost two index writes (its put, and its removal at the outcome).
     */
    ENQUEUE(Set.of(), true, false, QUEUED, Fence.NONE, Index.NONE),
    /** Resume schedules the pending run a pause cancelled again, over its CANCELLED item. */
    SCHEDULE_OVER_CANCELLED(Set.of(CANCELLED), true, false, SCHEDULED, Fence.NONE, Index.AT_DUE),
    /** An update moves the waiting run to its new due time. */
    RESCHEDULE(Set.of(SCHEDULED), false, false, SCHEDULED, Fence.NONE, Index.AT_DUE),
    /**
     * The dispatcher sent its message. Loses if someone else queued, claimed or cancelled it. The index entry moves to
     * when the message must have delivered the run (it is delayed by at most the lookahead), plus the requeue
     * timeout: only a lost message leaves it QUEUED until then.
     */
    MARK_QUEUED(Set.of(SCHEDULED), false, false, QUEUED, Fence.NONE, Index.AFTER_LOOKAHEAD),
    /**
     * An executor takes the run: attempt + 1 is its fencing token. Also from RUNNING once the lease has expired
     * (its executor died), and only when due ({@link RunRepository#dueForClaim}) and with attempts left: a message
     * that arrives early, whether a clock is off, the run was moved later after its message was sent, or the message
     * is forged, cannot start it before its time, however the executors interleave. Combined by the caller with the
     * job's check; on loss the item as it was comes back in the cancellation reasons.
     */
    CLAIM(Set.of(SCHEDULED, QUEUED, FAILED), false, true, RUNNING, Fence.DUE_AND_ATTEMPTS_LEFT, Index.UNCHANGED),
    /** The executor holding the attempt extends its lease. */
    HEARTBEAT(Set.of(RUNNING), false, false, RUNNING, Fence.OWN_ATTEMPT, Index.UNCHANGED),
    /**
     * {@link #HEARTBEAT} right before the binary starts, which also marks the attempt launched: an attempt whose
     * executor stopped before this point never ran its binary, and is given back ({@link #GIVE_BACK}).
     */
    LAUNCH(Set.of(RUNNING), false, false, RUNNING, Fence.OWN_ATTEMPT, Index.UNCHANGED),
    /** The binary exited 0. */
    SUCCEED(Set.of(RUNNING), false, false, SUCCEEDED, Fence.OWN_ATTEMPT, Index.REMOVED),
    /** The binary failed with attempts left: its message returns after the backoff. */
    FAIL(Set.of(RUNNING), false, false, FAILED, Fence.OWN_ATTEMPT, Index.AFTER_RETRY),
    /** The executor stopped the binary on shutdown: FAILED, with the attempt given back. */
    RELEASE(Set.of(RUNNING), false, false, FAILED, Fence.OWN_ATTEMPT, Index.AFTER_RETRY),
    /**
     * Its executor stopped between the claim and the binary's start (lease expired, never {@link #LAUNCH}ed): that
     * attempt did not run, so it is FAILED with the attempt given back, and the next claim may take another one.
     * Without it, such an attempt that was the last ended the run DEAD without its binary having run its attempts
     * (found by the fault suite: kill -9 right after a claim). At most {@link RunRepository#MAX_GIVE_BACKS} times a
     * run: past them the write loses, and the attempt counts.
     */
    GIVE_BACK(Set.of(), false, true, FAILED, Fence.SEEN_ATTEMPT, Index.AFTER_RETRY),
    /** The binary failed with no attempt left, or with an exit code the job calls non-retryable. */
    DIE(Set.of(RUNNING), false, false, DEAD, Fence.OWN_ATTEMPT, Index.REMOVED),
    /** Its job was deleted or paused, in the same transaction. */
    CANCEL_SCHEDULED(Set.of(SCHEDULED), false, false, CANCELLED, Fence.NONE, Index.REMOVED),
    /**
     * Its job was deleted or paused while the run waited in the queue, or while its last attempt's executor was
     * gone (RUNNING under an expired lease). Without the second case such a run stayed RUNNING for ever: the claim
     * that would have taken it over checks the job first, and found it deleted (found by the chaos run of issue 15).
     */
    CANCEL_UNSTARTED(Set.of(SCHEDULED, QUEUED, FAILED), false, true, CANCELLED, Fence.NONE, Index.REMOVED),
    /**
     * The executor that just claimed the run found its job deleted or paused (a claim under {@code overlap: allow}
     * checks the job right after the claim, not in it, or again at a late start): the attempt never starts, and the run is
     * CANCELLED, its claim undone (attempt, start, launch and executor as they were before it).
     */
    WITHDRAW(Set.of(RUNNING), false, false, CANCELLED, Fence.OWN_ATTEMPT, Index.REMOVED),
    /** Another run of its job is running and the job says {@code overlap: forbid}. */
    SKIP_OVERLAPPING(Set.of(SCHEDULED, QUEUED, FAILED), false, false, SKIPPED, Fence.NONE, Index.REMOVED),
    /** Found late, and the job's {@code catchUp} leaves it out. */
    SKIP_MISSED(Set.of(SCHEDULED), false, false, SKIPPED, Fence.NONE, Index.REMOVED),
    /**
     * No attempt left after its executor vanished, older than {@code maxRunAge}, or its message dead-lettered by
     * SQS: DEAD, into the dead-letter listing.
     */
    DEAD_LETTER(Set.of(QUEUED, FAILED), false, true, DEAD, Fence.SEEN_ATTEMPT, Index.REMOVED),
    /**
     * A DEAD run retried by its owner: queued again with more attempts, out of the dead-letter index, without its
     * TTL, and in the due index as {@link #MARK_QUEUED} puts it, so a lost message is sent again. The attempt number
     * is kept: the next claim continues it, so it stays a fencing token.
     */
    REDRIVE(Set.of(DEAD), false, false, QUEUED, Fence.SEEN_ATTEMPT, Index.AFTER_LOOKAHEAD),
    /** A stuck run (its message lost, or its executor dead) was sent again by the sweeper. */
    RESEND(Set.of(QUEUED, FAILED), false, true, null, Fence.SEEN_STATE_AND_ATTEMPT, Index.AFTER_LOOKAHEAD),
    /** A run under a live lease the sweeper came across: looked at again after the lease. */
    LOOK_AFTER_LEASE(Set.of(RUNNING), false, false, null, Fence.SEEN_STATE_AND_ATTEMPT, Index.AFTER_LEASE),
    /**
     * A run an executor could not claim because its tenant is at its running limit: it says so ({@link Run#waiting},
     * which its claim removes), and waits for another look; no attempt is used.
     */
    WAIT(Set.of(SCHEDULED, QUEUED, FAILED), false, false, null, Fence.NONE, Index.UNCHANGED),
    /** A finished run's index entry is dropped once the sweeper has done what it was left for. */
    UNINDEX(Set.of(SUCCEEDED, DEAD, CANCELLED, SKIPPED), false, false, null, Fence.NONE, Index.REMOVED);

    /** What else a transition's write is conditional on, beyond the run's state. */
    public enum Fence {
        NONE,
        /** The attempt the caller read (the run has not moved on since). */
        SEEN_ATTEMPT,
        /** The state and attempt the caller read. */
        SEEN_STATE_AND_ATTEMPT,
        /** The attempt this executor was granted, and its lease: a stale executor's write loses. */
        OWN_ATTEMPT,
        /** Due (give or take {@link RunRepository#CLAIM_TOLERANCE}) and an attempt left. */
        DUE_AND_ATTEMPTS_LEFT
    }

    /** Where the run's due-index entry is after the transition: when it next needs the sweeper. */
    public enum Index {
        /** Its due time, or now if it is created already due (catch-up, backfill). */
        AT_DUE,
        /** Now + lookahead + {@code requeue-after}: its message should long have been received by then. */
        AFTER_LOOKAHEAD,
        /** Now + the retry backoff's cap + {@code requeue-after}: its retry message should have come back. */
        AFTER_RETRY,
        /** Its lease's expiry + {@code requeue-after}. */
        AFTER_LEASE,
        /** Where it was. */
        UNCHANGED,
        /** None: a run created with its message already sent ({@link #ENQUEUE}). */
        NONE,
        /**
         * Out of the index; but a run claimed straight from SCHEDULED (never marked QUEUED) keeps an entry at now,
         * so the sweeper writes its job's next occurrence if the dispatcher that sent it crashed before its mark.
         */
        REMOVED
    }

    // An unmodifiable view of a set no one else holds, so the enum stays immutable, although Set is not a type
    // Error Prone knows to be immutable.
    @SuppressWarnings("ImmutableEnumChecker")
    private final Set<RunState> from;

    private final boolean orAbsent;
    private final boolean orExpiredLease;
    private final RunState to;
    private final Fence fence;
    private final Index index;

    Transition(Set<RunState> from, boolean orAbsent, boolean orExpiredLease, RunState to, Fence fence, Index index) {
        this.from = Collections.unmodifiableSet(from.isEmpty() ? EnumSet.noneOf(RunState.class) : EnumSet.copyOf(from));
        this.orAbsent = orAbsent;
        this.orExpiredLease = orExpiredLease;
        this.to = to;
        this.fence = fence;
        this.index = index;
    }

    /** The states it may start from (RUNNING only under a live lease's owner, see {@link #fromExpiredLease}). */
    public Set<RunState> from() {
        return from;
    }

    /** Whether it also creates the item where none exists. */
    public boolean fromAbsent() {
        return orAbsent;
    }

    /** Whether it also starts from RUNNING when the lease has expired (the executor died or froze). */
    public boolean fromExpiredLease() {
        return orExpiredLease;
    }

    /** The state it ends in; empty: the state stays (only the index entry moves). */
    public Optional<RunState> to() {
        return Optional.ofNullable(to);
    }

    public Fence fence() {
        return fence;
    }

    public Index index() {
        return index;
    }

    /**
     * Whether the run's item gets its TTL: it ends in a terminal state. Except {@link #CANCEL_SCHEDULED}, whose write
     * (in the transaction that deletes or pauses the job) sets none today: written down here as it is, found while
     * writing this table, and left for its own change (a resumed job schedules over the cancelled item anyway).
     */
    public boolean startsTtl() {
        return to != null && to.terminal() && this != CANCEL_SCHEDULED;
    }

    /**
     * Whether a run in {@code state} (null: no item) may take this transition, its lease live or not; the fence
     * is checked besides.
     */
    public boolean allows(RunState state, boolean leaseLive) {
        if (state == null) {
            return orAbsent;
        }
        if (state == RUNNING && !leaseLive && orExpiredLease) {
            return true;
        }
        return from.contains(state);
    }

    /** Whether the write ends the attempt's lease: it leaves RUNNING. */
    public boolean endsLease() {
        return (from.contains(RUNNING) || orExpiredLease) && to != null && to != RUNNING;
    }

    /**
     * When the run next needs the sweeper after this transition: the one rule every write of the due index follows.
     * Empty: it leaves the index. {@code run} is the run as the caller knows it (read by {@link Index#AT_DUE},
     * {@link Index#AFTER_LEASE}, and by an executor's outcome; the other rules take null). A run its executor
     * finishes that was claimed straight from SCHEDULED (never marked QUEUED, so no dispatcher wrote its job's next
     * occurrence, and if the dispatcher that sent it crashed none will) keeps an entry at now: the next sweep writes
     * the successor, then unindexes it.
     */
    public Optional<Instant> attention(Run run, Instant now, Settings s) {
        boolean neverMarked = fence == Fence.OWN_ATTEMPT && run != null && run.queuedAt() == null;
        return switch (index) {
            case AT_DUE -> Optional.of(run.dueSince());
            case AFTER_LOOKAHEAD ->
                Optional.of(now.plus(s.sweep().lookahead()).plus(s.sweep().requeueAfter()));
            case AFTER_RETRY ->
                Optional.of(now.plus(s.runs().retryCap()).plus(s.sweep().requeueAfter()));
            case AFTER_LEASE -> Optional.of(run.leaseExpiry().plus(s.sweep().requeueAfter()));
            case UNCHANGED -> throw new IllegalStateException(this + " leaves the index entry where it is");
            case REMOVED -> neverMarked ? Optional.of(now) : Optional.empty();
            case NONE -> Optional.empty();
        };
    }

    /** The transition table as ARCHITECTURE shows it. */
    public static String markdown() {
        StringBuilder b = new StringBuilder("| Transition | From | To | Fence | Due-index entry | TTL |\n");
        b.append("|---|---|---|---|---|---|\n");
        for (Transition t : values()) {
            List<String> from = new ArrayList<>();
            if (t.orAbsent) {
                from.add("(none)");
            }
            Arrays.stream(RunState.values()).filter(t.from::contains).forEach(st -> from.add(st.name()));
            if (t.orExpiredLease) {
                from.add(t == GIVE_BACK ? "RUNNING (lease expired, never launched)" : "RUNNING (lease expired)");
            }
            b.append("| `")
                    .append(t.name())
                    .append("` | ")
                    .append(String.join(", ", from))
                    .append(" | ")
                    .append(t.to().map(Enum::name).orElse("(same)"))
                    .append(" | ")
                    .append(t.fence.name())
                    .append(" | ")
                    .append(t.index.name())
                    .append(" | ")
                    .append(t.startsTtl() ? "yes" : "")
                    .append(" |\n");
        }
        return b.toString();
    }
}
