package dev.punctual.core.exec;

import dev.punctual.core.config.SandboxConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gives each ProcessRunner test a fresh directory of scripts, started through the sandbox's helper where the build
 * made it ({@link #helper}), else through util-linux's tools.
 */
abstract class ScriptTestBase {
    @TempDir
    Path temp;

    Scripts scripts;

    /** The helper runs start through; null: util-linux's tools (a subclass that tests that chain). */
    Path helper() {
        return SandboxConfig.DEFAULT_HELPER;
    }

    @BeforeEach
    void createScripts() throws Exception {
        scripts = new Scripts(temp, helper());
    }
}
