package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the executor, and so every run, can reach: a VPC endpoint for each service its code calls (and the image
 * pull and logs), HTTPS to those only unless run_egress = "internet-https", and Terraform refusing the
 * configurations that would not work or would open more than asked.
 */
class NetworkContractTest {
    static NetworkContract network;

    @BeforeAll
    static void load() throws Exception {
        network = new NetworkContract(Terraform.load(Terraform.MODULE));
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
