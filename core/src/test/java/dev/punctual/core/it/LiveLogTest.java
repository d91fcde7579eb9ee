package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.NotFoundException;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.infra.Metering;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.RunLogs.Slice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live log: a running attempt's output, shipped in chunks by a real executor to S3Proxy, read through the
 * service from an offset, followed until the attempt ends. The binaries wait on files the test creates.
 */
class LiveLogTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    private Punctual p;

    private Slice read(String jobId, String runId, Long offset, Integer waitSeconds) {
        return p.jobService.log(OWNER, jobId, runId, null, offset, waitSeconds);
    }

    @Test
    void aRunningAttemptsOutputIsShownFromAnOffsetAndFollowedUntilItEnds() throws Exception {
        p = Fixture.stack(
                Fixture.fastRetries().logChunkInterval(Duration.ofMillis(200)).build(), Clock.systemUTC());
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        Path shared = Fixture.shared(tmp);
        Path go = shared.resolve("go");
        Path end = shared.resolve("end");
        JobView job = Fixture.createJob(
                p,
                "tailed",
                "echo first\n"
                        + "while [ ! -e \"$GO\" ]; do sleep 0.05; done\n"
                        + "echo second\n"
                        + "while [ ! -e \"$END\" ]; do sleep 0.05; done\n"
                        + "echo third",
                ScheduleSpec.now(),
                j -> j.env(Map.of("GO", go.toString(), "END", end.toString())).timeoutSeconds(120));
        String runId = await().atMost(Duration.ofSeconds(15))
                .until(() -> Fixture.onlyRun(p, job.id()), r -> r.state() == RunState.RUNNING)
                .runId();

        Slice first = await().atMost(Duration.ofSeconds(15))
                .until(() -> read(job.id(), runId, null, null), s -> !s.text().isEmpty());
        assertThat(first).isEqualTo(new Slice("first\n", 6, false));
        assertThat(read(job.id(), runId, 6L, null)).isEqualTo(new Slice("", 6, false));
        assertThat(read(job.id(), runId, 2L, null)).isEqualTo(new Slice("rst\n", 6, false));
        assertThatThrownBy(() -> p.jobService.log("another-tenant", job.id(), runId, null, 0L, null))
                .isInstanceOf(NotFoundException.class);

        // A follow waits while the binary waits (it cannot write before "go" exists), and answers with what comes.
        CompletableFuture<Slice> second = CompletableFuture.supplyAsync(() -> read(job.id(), runId, 6L, 20));
        assertThat(second).isNotDone();
        Files.createFile(go);
        assertThat(second.get(20, TimeUnit.SECONDS)).isEqualTo(new Slice("second\n", 13, false));

        // Followed as a client would: from each answer's offset, until one says the log is complete (the last
        // output may come as a chunk or only with the log stored at the end).
        CompletableFuture<String> rest = CompletableFuture.supplyAsync(() -> follow(job.id(), runId, 13));
        Files.createFile(end);
        assertThat(rest.get(30, TimeUnit.SECONDS)).isEqualTo("third\n");
        await().atMost(Duration.ofSeconds(15))
                .until(() -> Fixture.onlyRun(p, job.id()).state() == RunState.SUCCEEDED);
        assertThat(read(job.id(), runId, null, null)).isEqualTo(new Slice("first\nsecond\nthird\n", 19, true));
        assertThat(read(job.id(), runId, 6L, 20)).isEqualTo(new Slice("second\nthird\n", 19, true));
        assertThat(read(job.id(), runId, 19L, null)).isEqualTo(new Slice("", 19, true));
        assertThat(p.store.chunks(job.id(), runId, 1, 0, 10))
                .as("the chunks shipped while it ran")
                .isNotEmpty();
        assertThat(fields(() -> read(job.id(), runId, 20L, null))).containsExactly("offset");
    }

    @Test
    void aShortQuietRunShipsNothingAndBadParametersAreNamed() {
        p = Fixture.stack(Fixture.fastRetries().build(), Clock.systemUTC());
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        Metering.enable();
        double puts = Metering.snapshot().getOrDefault("calls:S3:PutObject", 0.0);

        JobView job = Fixture.createJob(p, "quiet", "echo hi", ScheduleSpec.now(), j -> j);
        Run run = await().atMost(Duration.ofSeconds(15))
                .until(() -> Fixture.onlyRun(p, job.id()), r -> r.state() == RunState.SUCCEEDED);

        assertThat(Metering.snapshot().getOrDefault("calls:S3:PutObject", 0.0))
                .as("no chunk, and a log small enough for the run item")
                .isEqualTo(puts);
        assertThat(p.store.chunks(job.id(), run.runId(), 1, 0, 10)).isEmpty();
        assertThat(read(job.id(), run.runId(), null, null)).isEqualTo(new Slice("hi\n", 3, true));
        assertThat(fields(() -> read(job.id(), run.runId(), -1L, 21))).containsExactly("offset", "wait");
        assertThat(fields(() -> p.jobService.log(OWNER, job.id(), run.runId(), 2, null, null)))
                .containsExactly("attempt");
    }

    /** Everything from {@code offset} to the end of the attempt, read as a client follows a run. */
    private String follow(String jobId, String runId, long offset) {
        StringBuilder text = new StringBuilder();
        Slice s;
        do {
            s = read(jobId, runId, offset, 20);
            text.append(s.text());
            offset = s.nextOffset();
        } while (!s.complete());
        assertThat(offset).isEqualTo(19);
        return text.toString();
    }

    private static java.util.List<String> fields(Runnable call) {
        try {
            call.run();
        } catch (ValidationException e) {
            return e.errors().stream().map(FieldError::field).toList();
        }
        throw new AssertionError("no validation error");
    }
}
