package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.testing.TestStack;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProvisioningSmokeTest {

    @Test
    void resourcesFromTheOneDefinitionExistOnAllThreeEmulators() {
        Punctual p = TestStack.create(TestStack.isolatedSettings().build(), Clock.systemUTC());
        Instant now = Instant.now();
        var sent = p.queue.sendBatch(List.of(new RunMessage("job_x", "r1", now)), now);
        assertThat(sent).containsExactly(0);
        var got = p.queue.receive(10, 5, 30);
        assertThat(got).hasSize(1);
        assertThat(RunMessage.decode(got.get(0).body()).runId()).isEqualTo("r1");
        assertThat(p.watermarks.get()).isEmpty();
        assertThat(p.store.size(dev.punctual.core.binary.ArtifactStore.binaryKey("local", "0".repeat(64))))
                .isEmpty();
    }
}
