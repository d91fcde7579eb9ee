package dev.punctual.core.exec;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Gives each ProcessRunner test a fresh directory of scripts. */
abstract class ScriptTestBase {
    @TempDir
    Path temp;

    Scripts scripts;

    @BeforeEach
    void createScripts() throws Exception {
        scripts = new Scripts(temp);
    }
}
