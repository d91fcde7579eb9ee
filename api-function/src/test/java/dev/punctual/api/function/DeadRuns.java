package dev.punctual.api.function;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Transition;
import io.restassured.specification.RequestSpecification;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;

/** Runs made DEAD by the repository's own claim and finish, as an executor would, for the tests that read them. */
final class DeadRuns {
    private DeadRuns() {}

    /** The id of the first run the API lists for {@code jobId}, asked through {@code caller}. */
    static String firstRunId(RequestSpecification caller, String jobId) {
        return caller.get("/v1/jobs/" + jobId + "/runs?future=true")
                .then()
                .statusCode(200)
                .extract()
                .path("items[0].runId");
    }

    /** The same, asked by the default test user. */
    static String firstRunId(String jobId) {
        return firstRunId(given(), jobId);
    }

    /** The {@code field} of each DEAD run {@code caller} sees listed (the first page, up to 100). */
    static List<String> deadRunsListed(RequestSpecification caller, String field) {
        return Listings.listed(caller.queryParam("state", "DEAD"), "/v1/runs", field);
    }

    /**
     * Claims the run at {@code due} (a claim wins only once the run is due) with a one-minute lease for
     * {@code executor}, then finishes it DEAD at {@code diedAt}: attempt 1, exit code 3, plus whatever
     * {@code finish} adds. Both writes must win.
     */
    static void claimAndDie(
            Punctual punctual,
            String jobId,
            String runId,
            Instant due,
            String executor,
            Instant diedAt,
            UnaryOperator<Change> finish) {
        claim(punctual, jobId, runId, due, executor);
        assertThat(punctual.runs
                        .apply(finish.apply(Change.of(
                                        Transition.DIE,
                                        punctual.runs.get(jobId, runId).orElseThrow(),
                                        diedAt)
                                .withAttempt(1)
                                .withExecutor(executor)
                                .withExitCode(3)
                                .withError("exited with code 3")))
                        .won())
                .isTrue();
    }

    /**
     * Claims the run at {@code due} (a claim wins only once the run is due) with a one-minute lease for
     * {@code executor}, as an executor does: RUNNING, attempt 1. The write must win.
     */
    static void claim(Punctual punctual, String jobId, String runId, Instant due, String executor) {
        assertThat(punctual.tx
                        .write(List.of(
                                punctual.jobs.conditionRunnable(jobId),
                                punctual.runs.write(Change.of(Transition.CLAIM, jobId, runId, due)
                                        .withLease(executor, due.plus(Duration.ofMinutes(1))))))
                        .won())
                .isTrue();
    }
}
