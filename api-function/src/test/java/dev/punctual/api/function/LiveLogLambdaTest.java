package dev.punctual.api.function;

import static dev.punctual.api.function.ApiBinaries.uploaded;
import static dev.punctual.api.function.DeadRuns.firstRunId;
import static dev.punctual.api.function.Problems.assertProblem;
import static dev.punctual.api.function.Problems.createJob;
import static dev.punctual.api.function.Problems.jobBody;
import static dev.punctual.api.function.Problems.later;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Transition;
import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The live log through the real Lambda path: a run claimed as an executor claims it, its output shipped as an
 * executor ships it (chunks in S3Proxy), read and followed through API Gateway v2 events.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
class LiveLogLambdaTest {
    private static final String EXECUTOR = "ex-live";

    @Inject
    Punctual punctual;

    @Test
    void aRunningRunsLogIsReadFromAnOffsetFollowedAndCompleteOnceItEnds() throws Exception {
        String at = later(1, ChronoUnit.HOURS);
        String jobId = createJob(jobBody("live", uploaded("live.sh"), Map.of("type", "once", "at", at)));
        String runId = firstRunId(jobId);
        Instant due = Instant.parse(at); // the claim refuses a run before it is due
        DeadRuns.claim(punctual, jobId, runId, due, EXECUTOR);
        String log = "/v1/jobs/" + jobId + "/runs/" + runId + "/log";

        expect(given().get(log), "", 0, false);
        ship(jobId, runId, 6, "first\n");
        expect(given().get(log), "first\n", 6, false);
        expect(given().get(log + "?offset=2"), "rst\n", 6, false);
        expect(given().get(log + "?offset=6&wait=1"), "", 6, false);
        assertProblem(given().get(log + "?offset=-1"), 400, "offset");
        assertProblem(given().get(log + "?offset=x"), 400, "offset");
        assertProblem(given().get(log + "?wait=21"), 400, "wait");
        assertProblem(given().get(log + "?follow=true"), 400, "follow");
        assertProblem(given().header(Gateway.USER, "mallory-live").get(log), 404);

        CompletableFuture<Response> follow = CompletableFuture.supplyAsync(
                () -> given().get(log + "?offset=6&wait=20").andReturn());
        ship(jobId, runId, 13, "second\n");
        expect(follow.get(30, TimeUnit.SECONDS), "second\n", 13, false);

        assertThat(punctual.runs
                        .apply(Change.of(
                                        Transition.SUCCEED,
                                        punctual.runs.get(jobId, runId).orElseThrow(),
                                        due.plusSeconds(1))
                                .withExecutor(EXECUTOR)
                                .withExitCode(0)
                                .withLog("first\nsecond\nthird\n"))
                        .won())
                .isTrue();
        expect(given().get(log + "?offset=13&wait=20"), "third\n", 19, true);
        expect(given().get(log), "first\nsecond\nthird\n", 19, true);
        assertProblem(given().get(log + "?offset=20"), 400, "offset");
    }

    /** Bytes {@code [end - text's length, end)} of attempt 1's output, shipped as the executor ships them. */
    private void ship(String jobId, String runId, long end, String text) {
        punctual.store.putChunk(ArtifactStore.chunkKey(jobId, runId, 1, end), text.getBytes(StandardCharsets.UTF_8));
    }

    private static void expect(Response r, String text, long nextOffset, boolean complete) {
        r.then().statusCode(200).contentType("text/plain");
        assertThat(r.asString()).isEqualTo(text);
        assertThat(r.header("Punctual-Log-Offset")).isEqualTo(Long.toString(nextOffset));
        assertThat(r.header("Punctual-Log-Complete")).isEqualTo(Boolean.toString(complete));
    }
}
