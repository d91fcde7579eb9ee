package dev.punctual.core.infra;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Calls that one process's threads make at once, sharing requests (group commit). A call asked while none is in
 * flight goes at once, on its own; the calls asked while one is in flight go together as soon as it ends, up to
 * {@code max} of them in one request, each keeping its own answer. Nothing waits for a batch to fill: under light
 * load every call goes alone and at once, and under load the requests, and the CPU of each, are shared; a call waits
 * at most for the request ahead of it. Under load (the request before was shared) a request waits up to
 * {@code linger} for more calls before it goes, so that the calls of runs handled at once, which come a moment
 * apart, share it (as PostgreSQL's {@code commit_delay} waits only while other transactions are active). Two calls
 * of one item (equal {@code item}) never share a request (DynamoDB refuses a batch that names an item twice): the
 * later one goes in the next. A thread may say ahead that it is about to ask a call ({@link #expect}): while such
 * calls are on their way, a request lingers for them too, the first time as well (the runs of one shared claim, each
 * about to read its job, wake together; the first to ask would otherwise go alone and the rest in a second request).
 *
 * @param <Q> what a call asks
 * @param <A> what it answers
 */
public final class SharedCalls<Q, A> implements AutoCloseable {
    /**
     * The executor's linger: the calls of the runs one receive brought come within a millisecond or two of each other
     * (their threads woken one by one, each through its own claim's steps).
     */
    public static final Duration EXECUTOR_LINGER = Duration.ofMillis(2);

    /** How often a linger for announced calls looks whether they are still on their way. */
    private static final long GIVEN_UP_CHECK_NANOS = TimeUnit.MICROSECONDS.toNanos(250);

    /** One call's answer in a shared request: its value, or the failure of that call alone. */
    public record Answer<A>(A value, RuntimeException error) {}

    /** Makes one request of the calls given (at least one), answering each of them in their order. */
    @FunctionalInterface
    public interface Request<Q, A> {
        List<Answer<A>> send(List<Q> calls);
    }

    private record Pending<Q, A>(Q call, Object item, CompletableFuture<A> done) {}

    private final Request<Q, A> request;
    private final Function<Q, Object> item;
    private final int max;
    private final String what;
    private final LinkedBlockingQueue<Pending<Q, A>> asked = new LinkedBlockingQueue<>();
    private final Thread sender;
    /** How long a request waits for more calls when the one before it was shared (zero: never). */
    private final Duration linger;
    /** Whether the last request carried more than one call (the sender's own). */
    private boolean lastShared;
    /** Calls announced by {@link #expect} and neither asked yet nor given up. */
    private final AtomicInteger coming = new AtomicInteger();

    /**
     * A call announced by {@link #expect}: closed when it is asked ({@link #ask(Object, Expected)}) or will not be
     * (closing twice is closing once).
     */
    public final class Expected implements AutoCloseable {
        private final AtomicBoolean closed = new AtomicBoolean();

        private Expected() {
            coming.incrementAndGet();
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                coming.decrementAndGet();
            }
        }
    }

    /**
     * {@code thread} names the thread that makes the requests; {@code what} names the calls in the failure of one
     * asked once they are closed.
     */
    public SharedCalls(
            String thread, String what, int max, Duration linger, Function<Q, Object> item, Request<Q, A> request) {
        this.request = request;
        this.linger = linger;
        this.item = item;
        this.max = max;
        this.what = what;
        this.sender = Thread.ofVirtual().name(thread).start(this::send);
    }

    /** How many calls wait for a request now (not counting the request in flight). */
    public int waiting() {
        return asked.size();
    }

    /**
     * Announces a call the calling thread is about to ask: until the returned {@link Expected} is closed, a request
     * lingers (up to {@code linger}) for it. Close it as soon as the call will not be asked after all: a request
     * would wait for it in vain, up to the linger.
     */
    public Expected expect() {
        return new Expected();
    }

    /** {@link #ask(Object)} of the call announced by {@code expected} (closed here, before the call is asked). */
    public A ask(Q call, Expected expected) {
        // Closed first: the sender that takes this call must not count it as still on its way.
        expected.close();
        return ask(call);
    }

    /** Makes {@code call}, in a request shared with the calls asked meanwhile; its answer, or its failure. */
    public A ask(Q call) {
        Pending<Q, A> p = new Pending<>(call, item.apply(call), new CompletableFuture<>());
        asked.add(p);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    // Every call asked is answered, and its request is bounded by the SDK's timeouts: an interrupt is
                    // kept for after the answer, as a call made on this thread would have.
                    return p.done().get(1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    if (!sender.isAlive() && asked.remove(p)) {
                        // Asked as the sender stopped, after its last look at what waits.
                        throw closed();
                    }
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException r) {
                        throw r;
                    }
                    if (e.getCause() instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void send() {
        Deque<Pending<Q, A>> later = new ArrayDeque<>();
        while (true) {
            List<Pending<Q, A>> batch = new ArrayList<>();
            try {
                batch.add(later.isEmpty() ? asked.take() : later.poll());
            } catch (InterruptedException e) {
                failAll(later);
                return;
            }
            if (Thread.currentThread().isInterrupted()) {
                // Closed as a call was asked: a waiting take may return the call with the interrupt kept (signalled
                // and interrupted at once), and the request would be aborted half made. Closed is closed.
                later.addFirst(batch.getFirst());
                failAll(later);
                return;
            }
            // What else is waiting, of other items; a second call of an item already in the batch waits for the next.
            Set<Object> named = new HashSet<>(List.of(batch.getFirst().item()));
            List<Pending<Q, A>> waiting = new ArrayList<>(later);
            later.clear();
            asked.drainTo(waiting);
            take(waiting, batch, named, later);
            boolean busy = lastShared;
            if ((busy || coming.get() > 0) && batch.size() < max && linger.isPositive()) {
                // Busy (the request before this one was shared), or calls announced: the calls of the runs handled
                // at once come within a moment of each other, and a moment's wait lets them share this request too.
                try {
                    linger(batch, named, later, busy);
                } catch (InterruptedException e) {
                    later.addAll(batch);
                    failAll(later);
                    return;
                }
            }
            lastShared = batch.size() > 1;
            send(batch);
        }
    }

    /** Into {@code batch} what of {@code waiting} fits and names no item already in it; the rest to {@code later}. */
    private void take(
            List<Pending<Q, A>> waiting, List<Pending<Q, A>> batch, Set<Object> named, Deque<Pending<Q, A>> later) {
        for (Pending<Q, A> p : waiting) {
            if (batch.size() < max && named.add(p.item())) {
                batch.add(p);
            } else {
                later.add(p);
            }
        }
    }

    /**
     * Waits up to {@link #linger} for more calls to join {@code batch}, until it is full; when not {@code busy}, only
     * while announced calls are on their way.
     */
    private void linger(List<Pending<Q, A>> batch, Set<Object> named, Deque<Pending<Q, A>> later, boolean busy)
            throws InterruptedException {
        long until = System.nanoTime() + linger.toNanos();
        long left;
        while (batch.size() < max && (left = until - System.nanoTime()) > 0) {
            if (!busy && coming.get() == 0 && asked.isEmpty()) {
                return;
            }
            // Not busy, an announced call given up unasked wakes nothing: looked at again every GIVEN_UP_CHECK.
            Pending<Q, A> p = asked.poll(busy ? left : Math.min(left, GIVEN_UP_CHECK_NANOS), TimeUnit.NANOSECONDS);
            if (p == null) {
                if (busy) {
                    return;
                }
                continue;
            }
            take(List.of(p), batch, named, later);
        }
    }

    private void send(List<Pending<Q, A>> batch) {
        try {
            List<Answer<A>> answers =
                    request.send(batch.stream().map(Pending::call).toList());
            for (int i = 0; i < batch.size(); i++) {
                Answer<A> a = answers.get(i);
                if (a.error() != null) {
                    batch.get(i).done().completeExceptionally(a.error());
                } else {
                    batch.get(i).done().complete(a.value());
                }
            }
        } catch (Throwable t) {
            // The request failed as a whole: each call fails as its own would have, and its caller decides.
            batch.forEach(p -> p.done().completeExceptionally(t));
        }
    }

    private void failAll(Deque<Pending<Q, A>> later) {
        IllegalStateException closed = closed();
        later.forEach(p -> p.done().completeExceptionally(closed));
        List<Pending<Q, A>> rest = new ArrayList<>();
        asked.drainTo(rest);
        rest.forEach(p -> p.done().completeExceptionally(closed));
    }

    private IllegalStateException closed() {
        return new IllegalStateException(what + " are closed");
    }

    /** Stops the sender; calls asked after this fail. */
    @Override
    public void close() {
        sender.interrupt();
    }
}
