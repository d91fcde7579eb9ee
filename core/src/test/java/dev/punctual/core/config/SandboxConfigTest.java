package dev.punctual.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SandboxConfigTest {
    @Test
    void theHelperIsLookedForBesideTheApplication() {
        // In a build, the first class path entry is target/test-classes (or target/classes): the helper the build
        // made in target/. (In the JVM image, quarkus-run.jar's directory, /deployments.)
        assertThat(SandboxConfig.DEFAULT.helper())
                .isEqualTo(Path.of("target", "punctual-sandbox").toAbsolutePath());
    }

    @Test
    void theDiskIsAutoFilesystemOrWatch() {
        assertThat(SandboxConfig.Disk.parse(" Filesystem")).isEqualTo(SandboxConfig.Disk.FILESYSTEM);
        assertThat(SandboxConfig.DEFAULT.disk()).isEqualTo(SandboxConfig.Disk.AUTO);
        assertThatThrownBy(() -> SandboxConfig.Disk.parse("tmpfs"))
                .hasMessage("punctual.sandbox-disk must be auto, filesystem or watch, not tmpfs");
    }
}
