package dev.punctual.core.it;

import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** What a test's run workers take: a directory of their own, and a timer stopped after each test. */
abstract class WorkerTest {
    @TempDir
    Path tmp;

    final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }
}
