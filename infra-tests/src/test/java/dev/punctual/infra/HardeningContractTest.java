package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The executor's container is root only to give each run a uid of its own: the ECS task drops every default
 * capability but the six the sandbox needs, has a read-only root filesystem, one task volume and explicit ulimits,
 * and both images run as root with read-only application files and the same directories on the same volume.
 */
class HardeningContractTest {
    static HardeningContract hardening;

    @BeforeAll
    static void load() throws Exception {
        hardening = new HardeningContract(Terraform.load(Terraform.MODULE));
    }

    @Test
    void theTaskRunsAsRootWithSixCapabilitiesOnAReadOnlyRootAndOneTaskVolume() {
        assertThat(hardening.taskDefinition()).isEmpty();
    }

    @Test
    void theTaskKeepsItsDirectoriesOnTheVolumeAndTheSandboxOn() {
        assertThat(hardening.environment()).isEmpty();
        assertThat(hardening.directories()).containsKeys(HardeningContract.DIRECTORIES.toArray(String[]::new));
    }

    @Test
    void bothImagesRunAsRootWithReadOnlyApplicationFilesAndTheTasksDirectories() throws Exception {
        assertThat(HardeningContract.image("Dockerfile.jvm", Dockerfile.load("Dockerfile.jvm"),
                hardening.directories(), true)).isEmpty();
        assertThat(HardeningContract.image("Dockerfile.native", Dockerfile.load("Dockerfile.native"),
                hardening.directories(), false)).isEmpty();
    }
}
