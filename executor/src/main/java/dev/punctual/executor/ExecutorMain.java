package dev.punctual.executor;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;

/** The executor process: no HTTP server, it lives until SIGTERM while {@link ExecutorLifecycle} works. */
@QuarkusMain
public class ExecutorMain implements QuarkusApplication {
    @Override
    public int run(String... args) {
        Quarkus.waitForExit();
        return 0;
    }
}
