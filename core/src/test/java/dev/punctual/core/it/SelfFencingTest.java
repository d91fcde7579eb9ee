package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.run.RunState;
import dev.punctual.core.testing.TestStack;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * An executor that can no longer renew its lease (DynamoDB refuses its heartbeats: injected by an SDK interceptor
 * on a real client) kills its binary before the lease can pass to another executor, so two attempts never overlap.
 */
class SelfFencingTest {
    @TempDir
    Path dir;

    @Test
    void aRunWhoseLeaseCannotBeRenewedIsKilledBeforeTheLeaseEnds() throws Exception {
        Settings settings = Fixture.shortLease(Duration.ofSeconds(4));
        Punctual setup = Fixture.stack(settings, Clock.systemUTC());
        AtomicBoolean failUpdates = new AtomicBoolean();
        DynamoDbClient failing = Fixture.dynamoFailingWhen(r -> failUpdates.get() && r instanceof UpdateItemRequest);
        Punctual executorSide = Fixture.executorSide(settings, failing, AwsClients.s3(TestStack.target()));

        Path witness = Fixture.witness(dir);
        var job = Fixture.witnessJob(
                setup,
                "fenced",
                "echo \"start $$\" >> \"$WITNESS\"; sleep 60; echo end >> \"$WITNESS\"",
                witness,
                300,
                3);

        try (ExecutorPool pool = executorSide.startExecutor("cut-off", dir.resolve("exec"), 1)) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> Fixture.lines(witness).size() == 1);
            long pid = Long.parseLong(Fixture.lines(witness).get(0).split(" ")[1]);
            long cutAt = System.nanoTime();
            failUpdates.set(true);

            await().atMost(Duration.ofSeconds(15))
                    .until(() -> ProcessHandle.of(pid).isEmpty()
                            || !ProcessHandle.of(pid).get().isAlive());
            Duration killedAfter = Duration.ofNanos(System.nanoTime() - cutAt);
            // The last renewal held the lease for 4 s; the binary had to be gone before another executor could
            // claim the run (plus the kill grace and scheduling slack on a loaded machine).
            assertThat(killedAfter)
                    .isLessThan(settings.execution()
                            .lease()
                            .plus(settings.execution().killGrace())
                            .plusSeconds(2));
            assertThat(Fixture.lines(witness)).noneMatch(l -> l.equals("end"));
            assertThat(Fixture.latestRun(setup, job.id()).state())
                    .as("it recorded nothing: the run is not its to settle")
                    .isEqualTo(RunState.RUNNING);
        }
    }
}
