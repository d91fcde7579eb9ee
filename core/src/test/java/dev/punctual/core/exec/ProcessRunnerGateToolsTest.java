package dev.punctual.core.exec;

import java.nio.file.Path;

/** {@link ProcessRunnerGateTest} through util-linux's tools, as where the build made no helper. */
class ProcessRunnerGateToolsTest extends ProcessRunnerGateTest {
    @Override
    Path helper() {
        return null;
    }
}
