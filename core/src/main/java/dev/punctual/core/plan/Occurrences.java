package dev.punctual.core.plan;

import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.schedule.Schedule;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Which occurrences of a schedule get a run, decided from values alone: what the tables say about an occurrence
 * reaches these functions as a predicate, so the dispatcher, resume and update share one rule each and the rules are
 * tested without DynamoDB.
 */
public final class Occurrences {
    private Occurrences() {}

    /**
     * The first occurrence from {@code start} on (itself included) that {@code taken} does not claim: an occurrence
     * that already ran, runs or waits is never scheduled again.
     */
    public static Optional<Instant> firstFree(Schedule schedule, Optional<Instant> start, Predicate<Instant> taken) {
        Optional<Instant> t = start;
        while (t.isPresent() && taken.test(t.get())) {
            t = schedule.next(t.get());
        }
        return t;
    }

    /**
     * The occurrences missed in {@code [from, until)} that the catch-up policy runs late, oldest first, and the
     * first occurrence at or after {@code until}, which is not missed.
     *
     * @param kept  {@code skip}: none; {@code latest}: the most recent; {@code all}: the most recent {@code maxRuns}
     * @param count how many missed occurrences were looked at: those within {@code maxAge} (0 under {@code skip},
     *     which looks at none)
     * @param after the first occurrence at or after {@code until}, if the schedule has one
     */
    public record CatchUpSelection(List<Instant> kept, int count, Optional<Instant> after) {}

    /**
     * The catch-up selection of the occurrences missed from {@code from} until {@code until}: none older than the
     * policy's {@code maxAge} before {@code now} counts.
     */
    public static CatchUpSelection catchUp(
            Schedule schedule, CatchUp policy, Instant from, Instant until, Instant now) {
        int keep = switch (policy.mode()) {
            case SKIP -> 0;
            case LATEST -> 1;
            case ALL -> policy.maxRuns();
        };
        if (keep == 0) {
            return new CatchUpSelection(List.of(), 0, schedule.first(until));
        }
        Instant oldest = now.minus(policy.maxAge());
        Deque<Instant> kept = new ArrayDeque<>();
        int count = 0;
        Optional<Instant> t = schedule.first(from.isBefore(oldest) ? oldest : from);
        while (t.isPresent() && t.get().isBefore(until)) {
            count++;
            if (kept.size() == keep) {
                kept.removeFirst();
            }
            kept.addLast(t.get());
            t = schedule.next(t.get());
        }
        return new CatchUpSelection(List.copyOf(kept), count, t);
    }
}
