package dev.punctual.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.run.Change;
import dev.punctual.core.run.Transition;
import dev.punctual.emulators.EmbeddedAws;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.model.BatchExecuteStatementRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementRequest;

/** How the fault injectors read the calls they watch, checked against the calls core's writes really make. */
class InjectedFaultsTest {
    @Test
    void aClaimSharedWithOtherWritesInABatchOfStatementsIsFoundWithItsRun(@TempDir Path tmp) throws Exception {
        // Two claims and a heartbeat in one batch, as the shared writes send them.
        List<BatchExecuteStatementRequest> batches = batchesOf(
                tmp,
                "claim-in-a-batch",
                List.of(
                        Change.of(Transition.CLAIM, "job_aaaaaaaaaaaaaaaaaaaa", "20300101T000000.000Z", NOW)
                                .withLease("ex-1", NOW.plusSeconds(60)),
                        Change.of(Transition.HEARTBEAT, "job_cccccccccccccccccccc", "20300101T000000.000Z", NOW)
                                .withAttempt(1)
                                .withLease("ex-1", NOW.plusSeconds(60)),
                        Change.of(Transition.CLAIM, "job_bbbbbbbbbbbbbbbbbbbb", "20300101T000001.000Z", NOW)
                                .withLease("ex-1", NOW.plusSeconds(60))));
        assertThat(batches).hasSize(1);
        List<BatchStatementRequest> st = batches.getFirst().statements();
        assertThat(InjectedFaults.claimKey(st.get(0).statement(), st.get(0).parameters()))
                .extractingByKeys("jobId", "runId")
                .extracting(v -> v.s())
                .containsExactly("job_aaaaaaaaaaaaaaaaaaaa", "20300101T000000.000Z");
        assertThat(InjectedFaults.claimKey(st.get(1).statement(), st.get(1).parameters()))
                .as("a heartbeat is not a claim")
                .isNull();
        assertThat(InjectedFaults.claimKey(st.get(2).statement(), st.get(2).parameters()))
                .extractingByKeys("jobId", "runId")
                .extracting(v -> v.s())
                .containsExactly("job_bbbbbbbbbbbbbbbbbbbb", "20300101T000001.000Z");
    }

    /**
     * Outcomes shared with other runs' writes in one batch count as outcomes: a halt before the Nth result that read
     * only UpdateItems never came on an executor whose outcomes all went in batches (CI's scenario 3, under load).
     */
    @Test
    void outcomesInABatchOfStatementsAreFoundWithTheirRunsAndNothingElseIs(@TempDir Path tmp) throws Exception {
        List<BatchExecuteStatementRequest> batches = batchesOf(
                tmp,
                "outcomes-in-a-batch",
                List.of(
                        Change.of(Transition.SUCCEED, "job_aaaaaaaaaaaaaaaaaaaa", "20300101T000000.000Z", NOW)
                                .withAttempt(1)
                                .withExecutor("ex-1")
                                .withExitCode(0),
                        Change.of(Transition.CLAIM, "job_bbbbbbbbbbbbbbbbbbbb", "20300101T000000.000Z", NOW)
                                .withLease("ex-1", NOW.plusSeconds(60)),
                        Change.of(Transition.HEARTBEAT, "job_cccccccccccccccccccc", "20300101T000000.000Z", NOW)
                                .withAttempt(1)
                                .withLease("ex-1", NOW.plusSeconds(60)),
                        Change.of(Transition.FAIL, "job_dddddddddddddddddddd", "20300101T000001.000Z", NOW)
                                .withAttempt(1)
                                .withExecutor("ex-1")
                                .withExitCode(1)
                                .withError("exited with code 1")));
        assertThat(batches).hasSize(1);
        assertThat(InjectedFaults.resultRuns(batches.getFirst()))
                .containsExactly(
                        "job_aaaaaaaaaaaaaaaaaaaa 20300101T000000.000Z",
                        "job_dddddddddddddddddddd 20300101T000001.000Z");
    }

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

    /**
     * The batches of statements sent when {@code changes} (of different runs) are written in one call, as the
     * executor's shared writes send them. The runs need not exist: the statements are what is read.
     */
    private static List<BatchExecuteStatementRequest> batchesOf(Path tmp, String name, List<Change> changes)
            throws Exception {
        List<BatchExecuteStatementRequest> batches = new ArrayList<>();
        ExecutionInterceptor capture = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                if (c.request() instanceof BatchExecuteStatementRequest b) {
                    batches.add(b);
                }
            }
        };
        try (Stage s = new Stage(name, Stage.target(EmbeddedAws.shared()), tmp, Map.of())) {
            s.punctual(
                            FaultClients.dynamo(s.target, UrlConnectionHttpClient.create(), List.of(capture)),
                            s.sqs,
                            Clock.systemUTC())
                    .runs
                    .applyAll(changes, Collections.nCopies(changes.size(), false));
        }
        return batches;
    }
}
