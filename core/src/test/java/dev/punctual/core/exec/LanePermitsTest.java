package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.firing.Priority;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class LanePermitsTest {
    /** Waits for a lane's grant on another thread. */
    private static CompletableFuture<Integer> waitFor(LanePermits permits, Priority lane, int least, int most) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return permits.acquire(lane, least, most);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void lanesThatKeepWaitingShareGrantsByWeightEvenlySpread() {
        LanePermits permits = new LanePermits(0);
        int each = 130;
        List<Priority> order = Collections.synchronizedList(new ArrayList<>());
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Priority p : Priority.values()) {
                for (int i = 0; i < each; i++) {
                    pool.execute(() -> {
                        try {
                            permits.acquire(p, 1, 1);
                            order.add(p);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                }
            }
            // Every lane keeps waiting through the picks looked at: 130 waiters a lane, 130 permits one by one.
            await().until(() -> Arrays.stream(Priority.values()).allMatch(p -> permits.waiting(p) == each));
            for (int i = 1; i <= each; i++) {
                permits.release(1);
                int granted = i;
                await().pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(1))
                        .until(() -> order.size() == granted);
            }
            List<Priority> picked = List.copyOf(order);
            permits.release(2 * each);
            assertThat(picked.stream().filter(p -> p == Priority.HIGH)).hasSize(80);
            assertThat(picked.stream().filter(p -> p == Priority.NORMAL)).hasSize(40);
            assertThat(picked.stream().filter(p -> p == Priority.LOW)).hasSize(10);
            // Spread, not in runs: low once in every 13, normal never more than 4 grants apart.
            for (int from = 0; from + 13 <= each; from += 13) {
                assertThat(picked.subList(from, from + 13)).containsOnlyOnce(Priority.LOW);
            }
            int last = -1;
            for (int i = 0; i < picked.size(); i++) {
                if (picked.get(i) == Priority.NORMAL) {
                    assertThat(i - last).isLessThanOrEqualTo(4);
                    last = i;
                }
            }
        }
    }

    @Test
    void aLaneAloneWaitsForItsLeastAndWhileOthersWaitTakesWhatIsFree() throws Exception {
        LanePermits permits = new LanePermits(3);
        assertThat(permits.acquire(Priority.LOW, 3, 3)).isEqualTo(3);
        CompletableFuture<Integer> normal = waitFor(permits, Priority.NORMAL, 3, 10);
        await().until(() -> permits.waiting(Priority.NORMAL) == 1);
        permits.release(1);
        // Alone, it waits for the three it asked for at least: one receive of several.
        assertThat(normal).isNotDone();
        assertThat(permits.available()).isEqualTo(1);
        // Another lane comes to wait: the turn's lane (picked as it came) takes what is free, before the newcomer.
        CompletableFuture<Integer> low = waitFor(permits, Priority.LOW, 1, 1);
        assertThat(normal.get()).isEqualTo(1);
        assertThat(low).isNotDone();
        permits.release(2);
        assertThat(low.get()).isEqualTo(1);
        assertThat(permits.available()).isEqualTo(1);
    }

    @Test
    void aLaneWhoseReceiveIsUnderWayIsPickedByWeightAndGetsWhatWasKeptAtOnce() throws Exception {
        LanePermits permits = new LanePermits(9);
        assertThat(permits.acquire(Priority.HIGH, 9, 9)).isEqualTo(9);
        // High asked for all it got: its next receive is under way, and it wants more. Low waits for one at a time.
        permits.hungry(Priority.HIGH, true);
        // Low waits with nine waiters of one each, so that it keeps waiting through the nine picks.
        List<Integer> lows = Collections.synchronizedList(new ArrayList<>());
        try (ExecutorService low = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 9; i++) {
                low.execute(() -> {
                    try {
                        lows.add(permits.acquire(Priority.LOW, 1, 1));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            await().until(() -> permits.waiting(Priority.LOW) == 9);
            for (int i = 0; i < 9; i++) {
                permits.release(1);
            }
            // Of nine freed one by one, eight kept for high (its weight), one to low: not nine to the lane waiting.
            await().until(() -> permits.reserved(Priority.HIGH) + lows.size() == 9);
            assertThat(permits.reserved(Priority.HIGH)).isEqualTo(8);
            assertThat(lows).hasSize(1);
            // High's next acquire takes what was kept, at once.
            assertThat(permits.acquire(Priority.HIGH, 4, 10)).isEqualTo(8);
            // No longer hungry, nothing is kept for it: what frees goes to low.
            permits.hungry(Priority.HIGH, false);
            permits.release(8);
            await().until(() -> lows.size() == 9);
        }
        assertThat(permits.reserved(Priority.HIGH)).isZero();
        assertThat(permits.available()).isZero();
    }

    @Test
    void aLaneAloneTakesUpToItsMostAndAnInterruptedWaitGivesNothingAway() throws Exception {
        LanePermits permits = new LanePermits(7);
        assertThat(permits.acquire(Priority.HIGH, 2, 10)).isEqualTo(7);
        ExecutorService one = Executors.newSingleThreadExecutor();
        Future<Integer> waiting = one.submit(() -> permits.acquire(Priority.NORMAL, 1, 1));
        await().until(() -> permits.waiting(Priority.NORMAL) == 1);
        waiting.cancel(true);
        await().until(() -> permits.waiting(Priority.NORMAL) == 0);
        one.shutdown();
        await().until(one::isTerminated);
        permits.release(7);
        assertThat(permits.available()).isEqualTo(7);
        assertThat(permits.acquire(Priority.LOW, 7, 7)).isEqualTo(7);
    }

    @Test
    void aRequestForNoneOrLessThanItsLeastIsRefused() {
        LanePermits permits = new LanePermits(1);
        for (List<Integer> bad : List.of(List.of(0, 1), List.of(2, 1))) {
            assertThatThrownBy(() -> permits.acquire(Priority.NORMAL, bad.get(0), bad.get(1)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
