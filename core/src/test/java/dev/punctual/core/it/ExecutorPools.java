package dev.punctual.core.it;

import dev.punctual.core.Punctual;
import dev.punctual.core.exec.ExecutorPool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The executors a test starts ({@code @RegisterExtension}), each stopped gracefully after the test, whatever its
 * outcome: a pool left running would keep polling and keep its binaries alive through the tests after it.
 */
final class ExecutorPools implements AfterEachCallback {
    private final List<ExecutorPool> started = new ArrayList<>();

    /** Starts executor {@code id} of {@code p}, working in {@code workRoot}, with 1 s long polls. */
    ExecutorPool start(Punctual p, String id, Path workRoot) {
        ExecutorPool pool = p.startExecutor(id, workRoot, 1);
        started.add(pool);
        return pool;
    }

    /** Stops an executor before the test ends (closing it again afterwards would only wait for nothing). */
    void stop(ExecutorPool pool) {
        started.remove(pool);
        pool.close();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        started.forEach(ExecutorPool::close);
        started.clear();
    }
}
