package dev.punctual.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobView;
import dev.punctual.emulators.EmbeddedAws;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The stores failing: DynamoDB throttling and 5xx, the emulators restarting, a log upload failing, DynamoDB and S3
 * out together around the result write.
 */
@Order(5)
class StoreFaultTest extends FaultScenarios {
    // ---- 10. DynamoDB throttling and 5xx -----------------------------------------------------------------------

    /**
     * Whether the API answers this exception with 503 and Retry-After: the condition of
     * {@code api/.../ProblemMappers.aws(SdkException)}, mirrored here because this module runs without Quarkus;
     * every other exception becomes a 500.
     */
    static boolean answers503(Throwable e) {
        return e instanceof SdkException s
                && (s.retryable()
                        || e instanceof AwsServiceException a && (a.isThrottlingException() || a.statusCode() >= 500));
    }

    @Test
    @Order(1)
    void dynamoDbThrottlingAndServerErrors() throws Exception {
        scenario("10. DynamoDB throttling / 5xx", s -> {
            s.binary(Stage.WORKER);
            AtomicReference<Double> rate = new AtomicReference<>(0.4);
            FaultyHttpClient http = Stage.faultyHttp(rate::get);
            var faulty = s.faultyDynamo(http);
            Punctual throttled = s.punctual(faulty, s.sqs, Clock.systemUTC());
            s.startExecutors(3, Map.of("dynamo-errors", "0.05"));
            s.startSweeper(throttled, "sweeper");
            // First an outage: every call of the API and the sweeper answered 500/503 until the SDK gives up.
            int outageRequests = Math.max(4, RUNS / 10);
            rate.set(1.0);
            http.serverErrorsOnly = true;
            Map<String, RuntimeException> failed =
                    new HashMap<>(s.submitTolerant(throttled, outageRequests, 0.2, 8, 0));
            // Then throttling and 5xx on 40 % of the calls: the SDK's retries absorb most.
            rate.set(0.4);
            http.serverErrorsOnly = false;
            failed.putAll(s.submitTolerant(throttled, RUNS, 0.2, 8, outageRequests));
            rate.set(0.0);
            // Failed requests: a 503, and nothing of them written.
            Set<String> jobNames = new HashSet<>();
            s.allJobs().forEach(j -> jobNames.add(j.get("name").s()));
            List<String> not503 = new ArrayList<>();
            List<String> partial = new ArrayList<>();
            failed.forEach((name, e) -> {
                if (!answers503(e)) {
                    not503.add(name + ": " + e);
                }
                if (jobNames.contains(name)) {
                    partial.add(name);
                }
            });
            Checker.Result r = s.drainAndCheck(DRAIN);
            faulty.close();
            s.notes.add(http.injected.get() + " of " + http.calls.get() + " API/sweeper DynamoDB calls failed"
                    + " (plus 5 % in executors); " + failed.size() + " of " + (RUNS + outageRequests)
                    + " creates answered 503 (" + outageRequests
                    + " in a full outage), none 500, none wrote anything;"
                    + " the rest ran");
            assertThat(http.injected.get()).isPositive();
            assertThat(failed).as("the requests during the outage failed").hasSizeGreaterThanOrEqualTo(outageRequests);
            assertThat(not503).as("failures the API would answer with 500").isEmpty();
            assertThat(partial).as("failed creates that wrote a job anyway").isEmpty();
        });
    }

    // ---- 11. emulator restart, data kept -----------------------------------------------------------------------

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    @Order(2)
    void emulatorRestartWithItsDataDirectoryKept() throws Exception {
        scenario("11. emulator restart, data kept", () -> {
            Path data = Files.createTempDirectory(suite.root(), "restart-data-");
            int dp = freePort();
            int qp = freePort();
            int sp = freePort();
            EmbeddedAws persistent = EmbeddedAws.start(data, dp, qp, sp);
            try (Stage s = stage(Stage.target(persistent), Map.of())) {
                s.startSweeperAndExecutors(3);
                s.submitWorkers(s.api, RUNS, 0.3, 1.0, Stage::now);
                s.awaitStarts(RUNS / 3, Duration.ofSeconds(60));
                long running = s.allRuns().stream()
                        .filter(r -> r.state() == RunState.RUNNING)
                        .count();
                long waiting = s.allRuns().stream()
                        .filter(r -> !r.state().terminal() && r.state() != RunState.RUNNING)
                        .count();
                persistent.close();
                // The outage lasts as long as a restart takes: same data directory, same ports.
                persistent = EmbeddedAws.start(data, dp, qp, sp);
                // ElasticMQ keeps queues in memory only: the queue comes back empty.
                s.provision();
                Checker.Result r = s.drainAndCheck(DRAIN);
                s.notes.add("restarted with " + running + " runs running and " + waiting
                        + " waiting (their messages lost with ElasticMQ's memory)");
                return s.check();
            } finally {
                persistent.close();
            }
        });
    }

    // ---- 11b. the last attempt's log cannot be uploaded ---------------------------------------------------------

    /**
     * Found by scenario 11 (S3 down while attempts finish): a run whose last attempt's log upload fails ends with the
     * previous attempt's log key, so the log API serves an earlier attempt's output as the latest. Made deterministic:
     * every attempt 2 log upload fails.
     */
    @Test
    @Order(3)
    void theLastAttemptsLogUploadFails() throws Exception {
        // Every log goes to S3 here (none is kept on the run), so that every attempt 2 upload can fail.
        scenario("11b. last attempt's log upload fails", Map.of("inlineLogBytes", "0"), s -> {
            s.startSweeper(s.api, "sweeper");
            s.startExecutors(2, Map.of("fail-log-upload", "/attempt-2.log"));
            List<JobView> jobs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                jobs.add(s.submit(
                        s.api, Stage.WORKER, "fails-" + i, s.env(0.1, 1), Stage.now(), 60, 2, RunState.DEAD, 2));
            }
            Checker.Result r = s.drainAndCheck(DRAIN);
            List<String> wrong = new ArrayList<>();
            for (var j : jobs) {
                Run run = runOf(r, j.id());
                if (run.logKey() != null && !run.logKey().endsWith("/attempt-" + run.attempt() + ".log")) {
                    wrong.add(run.runId() + " attempt " + run.attempt() + " -> " + run.logKey());
                }
            }
            s.notes.add(wrong.size() + " of " + jobs.size() + " DEAD runs (attempt 2, log upload failed) name the"
                    + " log of attempt 1");
            assertThat(wrong)
                    .as("runs whose outcome names an earlier attempt's log (GET .../log serves it as the" + " latest)")
                    .isEmpty();
        });
    }

    // ---- 14. a store outage around the result write ------------------------------------------------------------

    /**
     * At every 5th result write of each executor, its DynamoDB and S3 fail for 2 s (half the lease): the write and
     * the log uploads around it fail. The executor lives and keeps its lease (the outage is shorter than the lease
     * minus a heartbeat), so every binary that exited must have its outcome recorded by that same attempt: a binary
     * that succeeded is never run again.
     */
    @Test
    @Order(4)
    void aStoreOutageAroundTheResultWriteReRunsNothing() throws Exception {
        scenario("14. store outage around the result write", s -> {
            s.startSweeper(s.api, "sweeper");
            // Outages at least 2 s apart (two heartbeats, which renew the lease between them): never two run
            // together into one longer than the lease.
            List<Exec> faulty = s.startExecutors(3, Map.of("outage-at-result", "5:2000:2000"));
            s.submitWorkers(s.api, RUNS, 0.3, 1.0, Stage::now);
            Checker.Result r = s.drainAndCheck(DRAIN);
            long outages = faulty.stream()
                    .mapToLong(e -> e.faultLines().stream()
                            .filter(l -> l.startsWith("FAULT outage"))
                            .count())
                    .sum();
            s.notes.add(outages + " outages of 2 s, each starting at a result write; lease "
                    + FaultSettings.LEASE.toSeconds() + " s");
            assertThat(outages).as("outages were injected").isGreaterThanOrEqualTo(3);
            assertThat(r.duplicates())
                    .as("no binary that exited while its executor lived ran again")
                    .isZero();
        });
    }
}
