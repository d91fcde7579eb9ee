package dev.punctual.core.exec;

import dev.punctual.core.firing.Priority;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A number of permits that the lanes ({@link Priority}) want: an executor's room for received messages, or its run
 * slots. While several lanes want some (waiting here, or {@link #hungry}), the next grant goes to the lane a smooth
 * weighted round robin picks by {@link Priority#weight} (each wanting lane's credit grows by its weight at every pick,
 * the picked one's falls by the sum), so that among lanes that all keep wanting, {@code high}, {@code normal} and
 * {@code low} get 8, 4 and 1 of every 13 grants, spread evenly: no lane waits behind another for long, however busy
 * that one is. Within a lane, first come first served. The picked lane is served before anyone else: alone, once
 * there are as many permits as its waiter asked for at least; while others want some, as soon as one is free.
 */
final class LanePermits {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<Priority, ArrayDeque<Waiter>> waiting = new EnumMap<>(Priority.class);
    private final Map<Priority, Integer> credit = new EnumMap<>(Priority.class);
    /** Lanes that want more while not waiting here (a receive of theirs is under way: {@link #hungry}). */
    private final Set<Priority> hungry = EnumSet.noneOf(Priority.class);
    /** Permits picked for a hungry lane while its receive was under way, handed to its next {@link #acquire}. */
    private final Map<Priority, Integer> reserved = new EnumMap<>(Priority.class);

    private int available;
    /** The lane picked to be served next (null: none picked). */
    private Priority turn;

    private static final class Waiter {
        final int least;
        final int most;
        int granted;

        Waiter(int least, int most) {
            this.least = least;
            this.most = most;
        }
    }

    LanePermits(int permits) {
        this.available = permits;
        for (Priority p : Priority.values()) {
            waiting.put(p, new ArrayDeque<>());
            credit.put(p, 0);
            reserved.put(p, 0);
        }
    }

    /**
     * Waits for {@code lane}'s turn and, while no other lane waits, for {@code least} permits, then takes up to
     * {@code most}; while others wait, takes what is free when its turn comes, at least one and at most
     * {@code least}. Permits picked for the lane while it was {@link #hungry} come at once. Returns how many it took.
     */
    int acquire(Priority lane, int least, int most) throws InterruptedException {
        if (least < 1 || most < least) {
            throw new IllegalArgumentException("least " + least + ", most " + most);
        }
        lock.lock();
        try {
            int kept = reserved.get(lane);
            if (kept > 0 && waiting.get(lane).isEmpty()) {
                int n = Math.min(kept, most);
                reserved.put(lane, kept - n);
                return n;
            }
            Waiter w = new Waiter(least, most);
            waiting.get(lane).add(w);
            grant();
            try {
                while (w.granted == 0) {
                    changed.await();
                }
                return w.granted;
            } catch (InterruptedException e) {
                if (w.granted > 0) {
                    // Granted as the interrupt came: give them back to whoever waits next.
                    available += w.granted;
                } else {
                    waiting.get(lane).remove(w);
                }
                grant();
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether {@code lane} wants more than it is waiting for here: its last receive brought all it asked for, and the
     * next is under way. A receive takes a while, and permits freed meanwhile would otherwise all go to the lanes
     * waiting here, whatever their weight: a hungry lane takes part in the picks, and what it is picked for is kept
     * for its next {@link #acquire}. No longer hungry, what was kept for it is free again.
     */
    void hungry(Priority lane, boolean wants) {
        lock.lock();
        try {
            if (wants) {
                hungry.add(lane);
            } else {
                hungry.remove(lane);
                available += reserved.put(lane, 0);
            }
            grant();
        } finally {
            lock.unlock();
        }
    }

    void release(int n) {
        lock.lock();
        try {
            available += n;
            grant();
        } finally {
            lock.unlock();
        }
    }

    /** Permits not taken nor kept for a lane (a test's view). */
    int available() {
        lock.lock();
        try {
            return available;
        } finally {
            lock.unlock();
        }
    }

    /** Waiters of {@code lane} (a test's view). */
    int waiting(Priority lane) {
        lock.lock();
        try {
            return waiting.get(lane).size();
        } finally {
            lock.unlock();
        }
    }

    /** Permits kept for {@code lane} (a test's view). */
    int reserved(Priority lane) {
        lock.lock();
        try {
            return reserved.get(lane);
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: serves the picked lane, then picks the next, while there are permits enough. */
    private void grant() {
        boolean served = false;
        while (true) {
            if (turn == null) {
                if (available == 0) {
                    // Picked when a permit comes: by then the lanes wanting are the ones to choose among (a lane
                    // whose waiter was just served may be back by then).
                    break;
                }
                turn = pick();
                if (turn == null) {
                    break;
                }
            }
            Waiter w = waiting.get(turn).peekFirst();
            if (w == null) {
                if (hungry.contains(turn) && available > 0) {
                    // Its receive is under way: one permit kept for it.
                    available--;
                    reserved.merge(turn, 1, Integer::sum);
                }
                turn = null;
                continue;
            }
            // Alone, a lane waits for as many as it asked for at least (a receive of several is one call). While
            // others want some, it takes what is free, up to that: a lane that waited for several would otherwise
            // hold the turn while the permits freed one by one.
            boolean others = othersWant(turn);
            if (available < (others ? 1 : w.least)) {
                break;
            }
            waiting.get(turn).remove(w);
            turn = null;
            int n = Math.min(available, others ? w.least : w.most);
            available -= n;
            w.granted = n;
            served = true;
        }
        if (served) {
            changed.signalAll();
        }
    }

    private boolean wants(Priority lane) {
        return !waiting.get(lane).isEmpty() || hungry.contains(lane);
    }

    private boolean othersWant(Priority lane) {
        for (Priority p : Priority.values()) {
            if (p != lane && wants(p)) {
                return true;
            }
        }
        return false;
    }

    /** Smooth weighted round robin over the lanes that want permits (waiting, or hungry). */
    private Priority pick() {
        Priority best = null;
        int total = 0;
        for (Priority p : Priority.values()) {
            if (!wants(p)) {
                continue;
            }
            total += p.weight;
            credit.merge(p, p.weight, Integer::sum);
            if (best == null || credit.get(p) > credit.get(best)) {
                best = p;
            }
        }
        if (best != null) {
            credit.merge(best, -total, Integer::sum);
        }
        return best;
    }
}
