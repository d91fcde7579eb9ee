package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** `terraform fmt -check` over infra/terraform (providers are not needed for it), when terraform is installed. */
class TerraformFmtTest {
    @Test
    void terraformFilesAreFormatted() throws Exception {
        assumeTrue(onPath("terraform"), "terraform is not installed: fmt check skipped");
        Process p = new ProcessBuilder("terraform", "fmt", "-check", "-recursive", "-diff", Terraform.MODULE.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("terraform fmt -check output:\n" + out).isZero();
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
