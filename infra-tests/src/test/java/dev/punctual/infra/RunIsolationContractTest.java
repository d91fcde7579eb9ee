package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a run can do and reach. The executor's container is root only to give each run a uid of its own: the ECS
 * task drops every default capability but the six the sandbox needs, has a read-only root filesystem, one task
 * volume and explicit ulimits, and both images run as root with the same directories on the same volume. Its
 * network, which runs share, has a VPC endpoint for each service the executor calls and allows HTTPS to those only,
 * unless run_egress = "internet-https"; Terraform refuses the configurations that would not work.
 */
class RunIsolationContractTest {
    static HardeningContract hardening;
    static NetworkContract network;

    @BeforeAll
    static void load() throws Exception {
        Terraform tf = Terraform.load(Terraform.MODULE);
        hardening = new HardeningContract(tf);
        network = new NetworkContract(tf);
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
    void bothImagesRunAsRootWithRootOwnedApplicationFilesAndTheTasksDirectories() throws Exception {
        assertThat(HardeningContract.image(
                        "Dockerfile.jvm", Dockerfile.load("Dockerfile.jvm"), hardening.directories(), true))
                .isEmpty();
        assertThat(HardeningContract.image(
                        "Dockerfile.native", Dockerfile.load("Dockerfile.native"), hardening.directories(), false))
                .isEmpty();
    }

    @Test
    void everyServiceTheExecutorCallsHasAVpcEndpoint() throws Exception {
        assertThat(NetworkContract.neededEndpoints()).containsKeys("dynamodb", "sqs", "s3");
        assertThat(network.endpoints(NetworkContract.neededEndpoints())).isEmpty();
    }

    @Test
    void theExecutorMaySendOnlyHttpsAndToAddressRangesOnlyUnderRunEgress() {
        assertThat(network.egressRules()).isEmpty();
    }

    @Test
    void terraformPlansTheEgressRunEgressAsksForAndRefusesWhatCannotWork(@TempDir Path dir) throws Exception {
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(network.plans(dir, NetworkContract.neededEndpoints())).isEmpty();
    }
}
