package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.exec.RunWorker;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * A first run's message carries its job's firing policy as a hint (sent as the job was created), so its executor
 * claims without reading the job first. A job replaced meanwhile by one whose runs must not overlap: the check after
 * the claim hands the attempt back, and the message, delivered again, must be claimed as the new policy says, not
 * on the same hint again.
 */
class HintedFirstRunTest {
    @TempDir
    Path tmp;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    @Test
    void aFirstRunWhoseJobNoLongerMayOverlapIsHandedBackOnceThenClaimedByItsNewPolicy() throws Exception {
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), Clock.systemUTC());
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("true"));
        Instant start = Instant.now().plusSeconds(4).truncatedTo(ChronoUnit.SECONDS);
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("hourly", binaryId, Fixture.interval(Duration.ofHours(1), start))
                        .build());
        p.jobService.update(
                OWNER,
                job.id(),
                "*",
                JobRequest.builder("hourly", binaryId, job.schedule())
                        .overlap("forbid")
                        .build());
        RunWorker worker = p.worker("ex-hint", tmp.resolve("ex"), timer);

        Message first = Fixture.nextMessage(p);
        assertThat(RunMessage.decode(first.body()).hint())
                .as("sent with its job's old policy")
                .isNotNull();
        assertThat(worker.handle(first))
                .as("claimed on the hint, checked, handed back")
                .isEqualTo(RunWorker.Outcome.RELEASED);
        assertThat(worker.handle(Fixture.nextMessage(p)))
                .as("delivered again: claimed as the job's new policy says, and run")
                .isEqualTo(RunWorker.Outcome.SUCCEEDED);
        Run ran = Fixture.runsOf(p, job.id()).stream()
                .filter(r -> r.attempt() > 0)
                .findFirst()
                .orElseThrow();
        assertThat(ran.state()).isEqualTo(RunState.SUCCEEDED);
        assertThat(ran.attempt())
                .as("the attempt handed back, then the one that ran")
                .isEqualTo(2);
    }
}
