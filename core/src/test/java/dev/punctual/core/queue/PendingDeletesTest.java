package dev.punctual.core.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Deletes are gathered ten a call, none waits longer than the linger, and a flush sends what is left at once. */
class PendingDeletesTest {
    private final List<List<String>> calls = new CopyOnWriteArrayList<>();
    private static final Duration LINGER = Duration.ofMillis(300);
    private final PendingDeletes deletes = new PendingDeletes(batch -> calls.add(List.copyOf(batch)), LINGER);

    private static List<String> handles(int from, int to) {
        List<String> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add("h" + i);
        }
        return out;
    }

    @Test
    void tenPendingGoInOneCallAtOnce() {
        handles(0, 10).forEach(deletes::add);
        await().atMost(Duration.ofMillis(900)).until(() -> calls.size() == 1);
        assertThat(calls.get(0)).containsExactlyElementsOf(handles(0, 10));
    }

    @Test
    void fewerThanTenGoTogetherOnceTheOldestHasWaitedTheLinger() {
        long start = System.nanoTime();
        handles(0, 3).forEach(deletes::add);
        await().atMost(Duration.ofSeconds(5)).until(() -> calls.size() == 1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(LINGER);
        assertThat(calls.get(0)).containsExactlyElementsOf(handles(0, 3));
    }

    @Test
    void aFlushSendsEverythingPendingTenACall() {
        // More than the sender takes at once: whatever it has not sent yet, the flush sends, none twice.
        handles(0, 25).forEach(deletes::add);
        deletes.flush();
        deletes.flush();
        await().atMost(Duration.ofSeconds(3))
                .until(() -> calls.stream().mapToInt(List::size).sum() == 25);
        assertThat(calls).allSatisfy(c -> assertThat(c).hasSizeLessThanOrEqualTo(RunQueue.MAX_BATCH));
        assertThat(calls.stream().flatMap(List::stream)).containsExactlyInAnyOrderElementsOf(handles(0, 25));
    }

    @Test
    void aFailedCallIsLoggedAndTheNextDeletesStillGo() {
        List<List<String>> sent = new CopyOnWriteArrayList<>();
        boolean[] failed = {false};
        PendingDeletes flaky = new PendingDeletes(
                batch -> {
                    if (!failed[0]) {
                        failed[0] = true;
                        throw new IllegalStateException("injected: SQS unreachable");
                    }
                    sent.add(List.copyOf(batch));
                },
                LINGER);
        handles(0, 10).forEach(flaky::add);
        await().atMost(Duration.ofSeconds(3)).until(() -> failed[0]);
        handles(10, 20).forEach(flaky::add);
        await().atMost(Duration.ofSeconds(3)).until(() -> sent.size() == 1);
        assertThat(sent.get(0)).containsExactlyElementsOf(handles(10, 20));
    }

    @Test
    void theLingerIsAQuarterOfTheLeastVisibilityAHandledMessageHasLeft() {
        // The defaults: lease 60 s, heartbeat 20 s; less 2 s for a message received ahead of its run.
        assertThat(PendingDeletes.lingerFor(Duration.ofSeconds(60), Duration.ofSeconds(20)))
                .isEqualTo(Duration.ofMillis(9500));
        // The fault suite's 4 s lease and 1 s heartbeat.
        assertThat(PendingDeletes.lingerFor(Duration.ofSeconds(4), Duration.ofSeconds(1)))
                .isEqualTo(Duration.ofMillis(250));
        assertThat(PendingDeletes.lingerFor(Duration.ofMinutes(15), Duration.ofSeconds(20)))
                .isEqualTo(PendingDeletes.MAX_LINGER);
        assertThat(PendingDeletes.lingerFor(Duration.ofSeconds(3), Duration.ofSeconds(1)))
                .isEqualTo(PendingDeletes.MIN_LINGER);
    }
}
