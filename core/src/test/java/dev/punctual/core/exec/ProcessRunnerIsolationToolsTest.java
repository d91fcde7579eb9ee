package dev.punctual.core.exec;

import java.nio.file.Path;

/** {@link ProcessRunnerIsolationTest} through util-linux's tools, as where the build made no helper. */
class ProcessRunnerIsolationToolsTest extends ProcessRunnerIsolationTest {
    @Override
    Path helper() {
        return null;
    }
}
