package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * infra/terraform with the real AWS provider, still offline: {@code terraform validate} of the module and both
 * examples (every argument against the provider's schema), and {@code terraform test} of
 * {@code src/test/terraform/*.tftest.hcl}, which plan and apply the module against a mocked provider (no AWS account)
 * and check the rendered executor task and network, and every lane's queues with their policies, alarms, scaling
 * terms and outputs; and a plan against the state of a deployment of the previous
 * layout ({@link PreviousLayout}). Terraform cannot download providers on the development machine,
 * so this needs hashicorp/aws in a local mirror (the directory layout of {@code terraform providers mirror}):
 * {@code PUNCTUAL_TF_PROVIDER_MIRROR}, else {@code /opt/tf-plugins}; skipped without one.
 */
class ProviderMockTest {
    static final Path TESTS = Terraform.PROJECT.resolve("infra-tests/src/test/terraform");

    @TempDir
    Path dir;

    @Test
    void theModuleAndItsExamplesValidateAgainstTheProvidersSchema() throws Exception {
        Path module = copyModule();
        for (Path d : List.of(module, module.resolve("examples/minimal"), module.resolve("examples/localstack"))) {
            init(d);
            OfflinePlan.Run validate = OfflinePlan.terraform(d, "validate", "-no-color");
            assertThat(validate.exit())
                    .as("terraform validate in %s:\n%s", module.relativize(d), validate.output())
                    .isZero();
        }
    }

    @Test
    void theExecutorsTaskAndNetworkPlanAndApplyAsTheTerraformTestsSay() throws Exception {
        Path module = copyModule();
        Files.createDirectories(module.resolve("tests"));
        // The tests, and the mocks (*.tfmock.hcl) and variables (terraform.tfvars) they share.
        try (var tests = Files.list(TESTS)) {
            for (Path t : tests.filter(Files::isRegularFile).toList()) {
                Files.copy(t, module.resolve("tests").resolve(t.getFileName()));
            }
        }
        // The Lambda packages only need to exist: the mocked provider uploads nothing.
        Path zip = Files.writeString(dir.resolve("function.zip"), "not a zip");
        init(module);
        OfflinePlan.Run test = OfflinePlan.terraform(
                module, "test", "-no-color", "-var", "api_zip=" + zip, "-var", "sweeper_zip=" + zip);
        assertThat(test.exit()).as("terraform test:\n%s", test.output()).isZero();
        assertThat(test.stdout()).contains("passed, 0 failed");
    }

    @Test
    void aDeploymentOfThePreviousLayoutUpgradesWithoutDestroyingOrReplacingAnything() throws Exception {
        Path module = copyModule();
        assertThat(PreviousLayout.plan(module, mirror().orElseThrow())).isEmpty();
    }

    /** A copy of infra/terraform (its .tf files and examples, no local state or provider installs). */
    private Path copyModule() throws IOException {
        assumeTrue(OfflinePlan.available(), "terraform is not installed: provider checks skipped");
        assumeTrue(
                mirror().isPresent(),
                "no local mirror of the hashicorp/aws provider (PUNCTUAL_TF_PROVIDER_MIRROR "
                        + "or /opt/tf-plugins): provider checks skipped");
        Path module = dir.resolve("terraform");
        try (var files = Files.walk(Terraform.MODULE)) {
            for (Path f : files.toList()) {
                Path rel = Terraform.MODULE.relativize(f);
                if (rel.toString().contains(".terraform") || rel.toString().contains("tfstate")) {
                    continue;
                }
                if (Files.isDirectory(f)) {
                    Files.createDirectories(module.resolve(rel.toString()));
                } else if (f.toString().endsWith(".tf")) {
                    Files.copy(f, module.resolve(rel.toString()));
                }
            }
        }
        return module;
    }

    private static void init(Path d) throws Exception {
        OfflinePlan.Run init = OfflinePlan.terraform(
                d, "init", "-input=false", "-no-color", "-backend=false", "-plugin-dir=" + mirror().orElseThrow());
        assertThat(init.exit())
                .as("terraform init in %s:\n%s", d, init.output())
                .isZero();
    }

    static Optional<Path> mirror() {
        String configured = System.getenv("PUNCTUAL_TF_PROVIDER_MIRROR");
        Path p = configured != null && !configured.isBlank() ? Path.of(configured) : Path.of("/opt/tf-plugins");
        return Files.isDirectory(p.resolve("registry.terraform.io/hashicorp/aws")) ? Optional.of(p) : Optional.empty();
    }
}
