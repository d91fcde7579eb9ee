package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.job.Job;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.BinaryView;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Knowing a binary's sha256 is not having it: each owner's binaries are stored under the owner's own key, so a
 * registration is uploaded only by its owner's upload, and a job runs only bytes its owner uploaded.
 */
class BinaryOwnershipTest {
    private static final String ALICE = "https://issuer.example|alice";
    private static final String BOB = "arn:aws:iam::123456789012:role/bob";
    private static final ScheduleSpec NOW = ScheduleSpec.now();

    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    private final Punctual p = Fixture.realTimeStack();

    @Test
    void registeringAnotherOwnersSha256IsNotUploadedUntilThisOwnerUploadsTheBytes() {
        byte[] bytes = Fixture.script("echo alice's tool");
        String aliceBinary = Fixture.uploadBinary(p, ALICE, bytes);
        assertThat(p.binaries.get(ALICE, aliceBinary).uploaded()).isTrue();

        BinaryView bobs = Fixture.register(p, BOB, bytes);
        assertThat(bobs.sha256()).isEqualTo(Fixture.sha256(bytes));
        assertThat(p.binaries.get(BOB, bobs.id()).uploaded())
                .as("Alice's object is not Bob's")
                .isFalse();
        ValidationException refused = catchThrowableOfType(
                ValidationException.class,
                () -> p.jobService.create(
                        BOB,
                        JobRequest.builder("borrowed", bobs.id(), NOW)
                                .maxAttempts(1)
                                .build()));
        assertThat(refused).isNotNull();
        assertThat(refused.errors()).anySatisfy(e -> {
            assertThat(e.field()).isEqualTo("binaryId");
            assertThat(e.message()).contains("is not uploaded yet");
        });

        assertThat(Fixture.presignedPut(bobs, bytes).statusCode()).isEqualTo(200);
        assertThat(p.binaries.get(BOB, bobs.id()).uploaded()).isTrue();
        assertThat(p.store.size(ArtifactStore.binaryKey(BOB, bobs.sha256()))).contains((long) bytes.length);
        assertThat(ArtifactStore.binaryKey(BOB, bobs.sha256()))
                .isNotEqualTo(ArtifactStore.binaryKey(ALICE, bobs.sha256()));
    }

    @Test
    void aJobCannotRunAnotherOwnersObjectEvenWithTheBytesInTheExecutorsCache() {
        Path witness = Fixture.witness(tmp);
        byte[] bytes = Fixture.script("echo \"$WHO\" >> \"$WITNESS\"");
        String aliceBinary = Fixture.uploadBinary(p, ALICE, bytes);
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        JobView alices = p.jobService.create(
                ALICE,
                JobRequest.builder("alice", aliceBinary, NOW)
                        .env(Map.of("WITNESS", witness.toString(), "WHO", "alice"))
                        .maxAttempts(1)
                        .build());
        await().atMost(Duration.ofSeconds(15)).until(() -> onlyRun(alices.id()).state() == RunState.SUCCEEDED);
        assertThat(Fixture.lines(witness)).containsExactly("alice");

        // Bob registered the same sha256 but never uploaded; a job of his naming it is written straight to the
        // table (the API would refuse it) and its run sent to the executor that has Alice's bytes cached.
        BinaryView bobs = Fixture.register(p, BOB, bytes);
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Job job = Fixture.insertJob(
                p,
                BOB,
                NOW,
                now,
                now,
                1,
                j -> j.name("borrowed")
                        .binaryId(bobs.id())
                        .binarySha256(bobs.sha256())
                        .env(Map.of("WITNESS", witness.toString(), "WHO", "bob"))
                        .timeoutSeconds(30));
        String jobId = job.id();
        assertThat(p.queue.sendBatch(List.of(new RunMessage(jobId, job.pendingRunId(), now)), now))
                .hasSize(1);

        await().atMost(Duration.ofSeconds(15))
                .until(() -> onlyRun(jobId).state().terminal());
        Run bobsRun = onlyRun(jobId);
        assertThat(bobsRun.state()).isEqualTo(RunState.DEAD);
        assertThat(bobsRun.error()).startsWith("could not start").contains("has not been uploaded by the job's owner");
        assertThat(Fixture.lines(witness)).containsExactly("alice");
    }

    private Run onlyRun(String jobId) {
        return Fixture.onlyRun(p, jobId);
    }
}
