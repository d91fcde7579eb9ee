package dev.punctual.core.run;

import dev.punctual.core.infra.SharedCalls;
import dev.punctual.core.infra.SharedCalls.Answer;
import dev.punctual.core.run.RunRepository.Result;
import java.util.List;

/**
 * The conditional writes of runs that one executor's threads make at once (claims, launches, outcomes, heartbeats),
 * sharing calls ({@link SharedCalls}): a write asked while no call is in flight goes at once, on its own
 * ({@link RunRepository#apply}); the writes asked while one is in flight go together as soon as it ends, up to
 * {@link RunRepository#MAX_BATCH} of different runs in one {@link RunRepository#applyAll}, each statement keeping its
 * own condition and answer. Two writes of one run are never in one batch: the later one goes in the next.
 */
public final class SharedRunWrites implements AutoCloseable {
    private record Write(Change change, boolean returningNew) {}

    private final SharedCalls<Write, Result> calls;

    public SharedRunWrites(RunRepository runs, String name) {
        this.calls = new SharedCalls<>(
                "run-writes-" + name,
                "the executor's run writes",
                RunRepository.MAX_BATCH,
                SharedCalls.EXECUTOR_LINGER,
                w -> w.change().jobId() + "/" + w.change().runId(),
                batch -> write(runs, batch));
    }

    /** {@link RunRepository#apply}, in a call shared with the writes asked meanwhile. */
    public Result apply(Change change) {
        return calls.ask(new Write(change, false));
    }

    /** {@link RunRepository#applyReturningNew}, in a call shared with the writes asked meanwhile. */
    public Result applyReturningNew(Change change) {
        return calls.ask(new Write(change, true));
    }

    /** How many writes wait for a call now (not counting the call in flight). */
    public int waiting() {
        return calls.waiting();
    }

    private static List<Answer<Result>> write(RunRepository runs, List<Write> batch) {
        if (batch.size() == 1) {
            Write w = batch.getFirst();
            Result r = w.returningNew() ? runs.applyReturningNew(w.change()) : runs.apply(w.change());
            return List.of(new Answer<>(r, null));
        }
        return runs
                .applyAll(
                        batch.stream().map(Write::change).toList(),
                        batch.stream().map(Write::returningNew).toList())
                .stream()
                .map(a -> new Answer<>(a.result(), a.error()))
                .toList();
    }

    /** Stops the writer; writes asked after this fail. */
    @Override
    public void close() {
        calls.close();
    }
}
