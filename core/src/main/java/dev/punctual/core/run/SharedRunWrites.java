package dev.punctual.core.run;

import dev.punctual.core.run.RunRepository.Result;
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

/**
 * The conditional writes of runs that one executor's threads make at once (claims, launches, outcomes, heartbeats),
 * sharing calls. A write asked while no call is in flight goes at once, on its own ({@link RunRepository#apply}); the
 * writes asked while one is in flight go together as soon as it ends, up to {@link RunRepository#MAX_BATCH} of
 * different runs in one {@link RunRepository#applyAll}, each statement keeping its own condition and answer. Nothing
 * waits for a batch to fill (group commit): under light load every write goes alone and at once, and under load the
 * calls, and the CPU of each, are shared; a write waits at most for the call ahead of it. Two writes of one run are
 * never in one batch (DynamoDB refuses a batch that names an item twice): the later one goes in the next.
 */
public final class SharedRunWrites implements AutoCloseable {
    private final RunRepository runs;
    private final LinkedBlockingQueue<Pending> asked = new LinkedBlockingQueue<>();
    private final Thread writer;

    private record Pending(Change change, boolean returningNew, CompletableFuture<Result> done) {
        String run() {
            return change.jobId() + "/" + change.runId();
        }
    }

    public SharedRunWrites(RunRepository runs, String name) {
        this.runs = runs;
        this.writer = Thread.ofVirtual().name("run-writes-" + name).start(this::write);
    }

    /** {@link RunRepository#apply}, in a call shared with the writes asked meanwhile. */
    public Result apply(Change change) {
        return ask(change, false);
    }

    /** {@link RunRepository#applyReturningNew}, in a call shared with the writes asked meanwhile. */
    public Result applyReturningNew(Change change) {
        return ask(change, true);
    }

    /** How many writes wait for a call now (not counting the call in flight). */
    public int waiting() {
        return asked.size();
    }

    private Result ask(Change change, boolean returningNew) {
        Pending p = new Pending(change, returningNew, new CompletableFuture<>());
        asked.add(p);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    // Every write asked is answered, and its call is bounded by the SDK's timeouts: an interrupt is
                    // kept for after the answer, as a call made on this thread would have.
                    return p.done().get(1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    if (!writer.isAlive() && asked.remove(p)) {
                        // Asked as the writer stopped, after its last look at what waits.
                        throw new IllegalStateException("the executor's run writes are closed");
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

    private void write() {
        Deque<Pending> later = new ArrayDeque<>();
        while (true) {
            List<Pending> batch = new ArrayList<>();
            try {
                batch.add(later.isEmpty() ? asked.take() : later.poll());
            } catch (InterruptedException e) {
                failAll(later);
                return;
            }
            // What else is waiting, of other runs; a second write of a run already in the batch waits for the next.
            Set<String> named = new HashSet<>(List.of(batch.getFirst().run()));
            List<Pending> waiting = new ArrayList<>(later);
            later.clear();
            asked.drainTo(waiting);
            for (Pending p : waiting) {
                if (batch.size() < RunRepository.MAX_BATCH && named.add(p.run())) {
                    batch.add(p);
                } else {
                    later.add(p);
                }
            }
            send(batch);
        }
    }

    private void send(List<Pending> batch) {
        try {
            if (batch.size() == 1) {
                Pending p = batch.getFirst();
                p.done().complete(p.returningNew() ? runs.applyReturningNew(p.change()) : runs.apply(p.change()));
                return;
            }
            List<RunRepository.Applied> answers = runs.applyAll(
                    batch.stream().map(Pending::change).toList(),
                    batch.stream().map(Pending::returningNew).toList());
            for (int i = 0; i < batch.size(); i++) {
                RunRepository.Applied a = answers.get(i);
                if (a.error() != null) {
                    batch.get(i).done().completeExceptionally(a.error());
                } else {
                    batch.get(i).done().complete(a.result());
                }
            }
        } catch (Throwable t) {
            // The call failed as a whole: each write fails as its own call would have, and its caller decides.
            batch.forEach(p -> p.done().completeExceptionally(t));
        }
    }

    private void failAll(Deque<Pending> later) {
        IllegalStateException closed = new IllegalStateException("the executor's run writes are closed");
        later.forEach(p -> p.done().completeExceptionally(closed));
        List<Pending> rest = new ArrayList<>();
        asked.drainTo(rest);
        rest.forEach(p -> p.done().completeExceptionally(closed));
    }

    /** Stops the writer; writes asked after this fail. */
    @Override
    public void close() {
        writer.interrupt();
    }
}
