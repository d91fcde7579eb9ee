package dev.punctual.core.exec;

import dev.punctual.core.firing.Priority;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A number of permits that the lanes ({@link Priority}) wait for: an executor's room for received messages, or its
 * run slots. While several lanes wait, the next grant goes to the lane a smooth weighted round robin picks by
 * {@link Priority#weight} (each waiting lane's credit grows by its weight at every pick, the picked one's falls by the
 * sum), so that among lanes that all keep waiting, {@code high}, {@code normal} and {@code low} get 8, 4 and 1 of
 * every 13 grants, spread evenly: no lane waits behind another for long, however busy that one is. Within a lane,
 * first come first served. The picked waiter is served before anyone else, once there are as many permits as it
 * needs: a lane that wants several at once is not passed over for ever by lanes that want one.
 */
final class LanePermits {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<Priority, ArrayDeque<Waiter>> waiting = new EnumMap<>(Priority.class);
    private final Map<Priority, Integer> credit = new EnumMap<>(Priority.class);
    private int available;
    /** The waiter picked to be served next (null: none picked). */
    private Waiter turn;

    private static final class Waiter {
        final Priority lane;
        final int least;
        final int most;
        int granted;

        Waiter(Priority lane, int least, int most) {
            this.lane = lane;
            this.least = least;
            this.most = most;
        }
    }

    LanePermits(int permits) {
        this.available = permits;
        for (Priority p : Priority.values()) {
            waiting.put(p, new ArrayDeque<>());
            credit.put(p, 0);
        }
    }

    /**
     * Waits for {@code lane}'s turn and, while no other lane waits, for {@code least} permits, then takes up to
     * {@code most}; while others wait, takes what is free when its turn comes, at least one and at most
     * {@code least}. Returns how many it took.
     */
    int acquire(Priority lane, int least, int most) throws InterruptedException {
        if (least < 1 || most < least) {
            throw new IllegalArgumentException("least " + least + ", most " + most);
        }
        lock.lock();
        try {
            Waiter w = new Waiter(lane, least, most);
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
                    if (turn == w) {
                        turn = null;
                    }
                }
                grant();
                throw e;
            }
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

    /** Permits not taken (a test's view). */
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

    /** Under the lock: serves the picked waiter, then picks the next, while there are permits enough. */
    private void grant() {
        boolean served = false;
        while (true) {
            if (turn == null) {
                if (available == 0) {
                    // Picked when a permit comes: by then the lanes waiting are the ones to choose among (a lane
                    // whose waiter was just served may be back by then).
                    break;
                }
                turn = pick();
            }
            if (turn == null) {
                break;
            }
            // Alone, a lane waits for as many as it asked for at least (a receive of several is one call). While
            // others wait, it takes what is free, up to that: a lane that waited for several would otherwise hold
            // the turn while the permits freed one by one, and a high lane let in four messages at a time gets
            // about every other start behind a busy low one (bin/bench compare --priority, 158ffa1).
            boolean others = othersWait(turn.lane);
            if (available < (others ? 1 : turn.least)) {
                break;
            }
            Waiter w = turn;
            turn = null;
            waiting.get(w.lane).remove(w);
            int n = Math.min(available, others ? w.least : w.most);
            available -= n;
            w.granted = n;
            served = true;
        }
        if (served) {
            changed.signalAll();
        }
    }

    private boolean othersWait(Priority lane) {
        for (Priority p : Priority.values()) {
            if (p != lane && !waiting.get(p).isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Smooth weighted round robin over the lanes that have waiters: the first waiter of the lane picked. */
    private Waiter pick() {
        Priority best = null;
        int total = 0;
        for (Priority p : Priority.values()) {
            if (waiting.get(p).isEmpty()) {
                continue;
            }
            total += p.weight;
            credit.merge(p, p.weight, Integer::sum);
            if (best == null || credit.get(p) > credit.get(best)) {
                best = p;
            }
        }
        if (best == null) {
            return null;
        }
        credit.merge(best, -total, Integer::sum);
        return waiting.get(best).peekFirst();
    }
}
