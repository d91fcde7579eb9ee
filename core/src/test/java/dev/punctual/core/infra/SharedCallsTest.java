package dev.punctual.core.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.infra.SharedCalls.Answer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The group commit's linger (SharedCalls): a request waits for more calls only once the one before it was shared, or
 * while calls announced ahead are on their way, and goes as soon as it is full (or nothing more is on its way). The linger here is far longer than the test waits for any answer, so a request
 * that lingered when it should not have fails the test rather than slows it.
 */
class SharedCallsTest {
    private static final Duration LONG_LINGER = Duration.ofSeconds(30);
    private static final Duration PROMPTLY = Duration.ofSeconds(10);

    private final List<List<String>> requests = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstMayGo = new CountDownLatch(1);

    /** Echoes each call; the first request waits for {@link #firstMayGo}. */
    private List<Answer<String>> echo(List<String> calls) {
        requests.add(calls);
        if (requests.size() == 1) {
            try {
                firstMayGo.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return calls.stream().map(c -> new Answer<>(c, null)).toList();
    }

    private static CompletableFuture<String> ask(SharedCalls<String, String> calls, String call) {
        return CompletableFuture.supplyAsync(
                () -> calls.ask(call), r -> Thread.ofVirtual().start(r));
    }

    @Test
    void anIdleCallGoesAtOnceWhateverTheLinger() throws Exception {
        firstMayGo.countDown();
        try (SharedCalls<String, String> calls = new SharedCalls<>("t", "calls", 3, LONG_LINGER, c -> c, this::echo)) {
            assertThat(ask(calls, "a").get(PROMPTLY.toSeconds(), TimeUnit.SECONDS))
                    .isEqualTo("a");
            assertThat(ask(calls, "b").get(PROMPTLY.toSeconds(), TimeUnit.SECONDS))
                    .isEqualTo("b");
        }
        assertThat(requests).containsExactly(List.of("a"), List.of("b"));
    }

    @Test
    void afterASharedRequestTheNextWaitsForMoreAndGoesOnceFull() throws Exception {
        try (SharedCalls<String, String> calls = new SharedCalls<>("t", "calls", 3, LONG_LINGER, c -> c, this::echo)) {
            CompletableFuture<String> a = ask(calls, "a");
            await().until(() -> requests.size() == 1);
            CompletableFuture<String> b = ask(calls, "b");
            CompletableFuture<String> c = ask(calls, "c");
            await().until(() -> calls.waiting() == 2);
            firstMayGo.countDown();
            assertThat(List.of(a.get(), b.get(), c.get())).containsExactly("a", "b", "c");
            assertThat(requests).hasSize(2);
            assertThat(requests.get(1)).containsExactlyInAnyOrder("b", "c");
            // Busy now: d is taken and waits for company, e and f join it one after another, and the full request
            // goes at once (long before the linger is over).
            CompletableFuture<String> d = ask(calls, "d");
            await().until(() -> calls.waiting() == 0 && !d.isDone());
            CompletableFuture<String> e = ask(calls, "e");
            await().until(() -> calls.waiting() == 0);
            assertThat(d).as("still lingering").isNotDone();
            CompletableFuture<String> f = ask(calls, "f");
            assertThat(f.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS)).isEqualTo("f");
            assertThat(List.of(d.get(), e.get())).containsExactly("d", "e");
            assertThat(requests).as("d, e and f in one request").hasSize(3);
        }
        assertThat(requests.get(2)).containsExactlyInAnyOrder("d", "e", "f");
    }

    @Test
    void anIdleCallWaitsForTheCallsAnnouncedWithItAndGoesWithThem() throws Exception {
        firstMayGo.countDown();
        try (SharedCalls<String, String> calls = new SharedCalls<>("t", "calls", 3, LONG_LINGER, c -> c, this::echo)) {
            Announced two = askOneOfTwoAnnounced(calls);
            CompletableFuture<String> b = ask(calls, "b", two.other());
            // Nothing more announced: the request goes at once, not full and long before the linger is over.
            assertThat(List.of(
                            two.asked().get(PROMPTLY.toSeconds(), TimeUnit.SECONDS),
                            b.get(PROMPTLY.toSeconds(), TimeUnit.SECONDS)))
                    .containsExactly("a", "b");
        }
        assertThat(requests).hasSize(1);
        assertThat(requests.getFirst()).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void anAnnouncedCallGivenUpUnaskedHoldsNothingUp() throws Exception {
        firstMayGo.countDown();
        try (SharedCalls<String, String> calls = new SharedCalls<>("t", "calls", 3, LONG_LINGER, c -> c, this::echo)) {
            Announced two = askOneOfTwoAnnounced(calls);
            two.other().close();
            assertThat(two.asked().get(PROMPTLY.toSeconds(), TimeUnit.SECONDS)).isEqualTo("a");
            // Closing again changes nothing: the next idle call goes at once.
            two.other().close();
            assertThat(ask(calls, "b").get(PROMPTLY.toSeconds(), TimeUnit.SECONDS))
                    .isEqualTo("b");
        }
        assertThat(requests).containsExactly(List.of("a"), List.of("b"));
    }

    /** Call "a", asked as announced, and the other announcement it lingers for. */
    private record Announced(CompletableFuture<String> asked, SharedCalls<String, String>.Expected other) {}

    /** Announces two calls and asks the first, "a", which then lingers for the other while it is on its way. */
    private static Announced askOneOfTwoAnnounced(SharedCalls<String, String> calls) {
        var first = calls.expect();
        var other = calls.expect();
        CompletableFuture<String> a = ask(calls, "a", first);
        await().until(() -> calls.waiting() == 0);
        assertThat(a).as("lingering for the announced call").isNotDone();
        return new Announced(a, other);
    }

    private static CompletableFuture<String> ask(
            SharedCalls<String, String> calls, String call, SharedCalls<String, String>.Expected expected) {
        return CompletableFuture.supplyAsync(
                () -> calls.ask(call, expected), r -> Thread.ofVirtual().start(r));
    }
}
