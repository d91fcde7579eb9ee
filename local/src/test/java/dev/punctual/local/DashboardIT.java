package dev.punctual.local;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in a real browser against the packaged local runner (no auth): {@code local/browser/dashboard.test.mjs}
 * creates a job through the form (upload, live preview, field errors), watches its run succeed and reads its log,
 * filters the list, pauses and resumes, and retries a dead letter. The sign-in flow is in {@link LocalAuthIT}.
 */
class DashboardIT {
    @AutoClose
    private static LocalSystem system;

    private static Path binary;

    @BeforeAll
    static void start(@TempDir Path tmp) throws Exception {
        system = new LocalSystem("-Dpunctual.retry-base=PT1S", "-Dpunctual.log-chunk-interval=PT1S");
        binary = LocalSystem.binary(tmp);
    }

    @Test
    void theDashboardWorksInABrowser() throws Exception {
        Browser.run("dashboard.test.mjs", 22, Map.of("PUNCTUAL_URL", system.api, "PUNCTUAL_BINARY", binary.toString()));
    }
}
