package dev.punctual.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole system as a newcomer runs it: the packaged launcher in its own process, a native binary uploaded
 * through the presigned URL, jobs scheduled and observed only through the HTTP API.
 */
class LocalSystemIT {
    @AutoClose
    private static LocalSystem system;

    private static String binaryId;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        // Short retry backoff so the three-attempt test is quick; a lease of its own, which the queue must follow;
        // everything else runs with its defaults.
        system = new LocalSystem("-Dpunctual.retry-base=PT1S", "-Dpunctual.lease=PT30S", "-Dpunctual.heartbeat=PT10S");
        binaryId = system.upload(LocalSystem.binary(dir));
    }

    @Test
    void theQueueIsCreatedWithTheConfiguredLeaseAsItsVisibilityTimeout() throws Exception {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("SQS (http://\\S+)").matcher(system.output());
        assertThat(m.find()).as("the ready line names the SQS endpoint").isTrue();
        try (var sqs = software.amazon.awssdk.services.sqs.SqsClient.builder()
                .endpointOverride(java.net.URI.create(m.group(1)))
                .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("test", "test")))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
                .build()) {
            String url = sqs.getQueueUrl(b -> b.queueName("punctual-runs")).queueUrl();
            assertThat(sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings("VisibilityTimeout"))
                            .attributesAsStrings())
                    .containsEntry("VisibilityTimeout", "30");
        }
    }

    @Test
    void itIsLiveAndReadyWhileItsTablesAnswer() throws Exception {
        assertThat(system.get("/q/health/live").get("status").asText()).isEqualTo("UP");
        JsonNode ready = system.get("/q/health/ready");
        assertThat(ready.get("status").asText()).isEqualTo("UP");
        assertThat(ready.get("checks").findValuesAsText("name")).contains("jobs table");
    }

    @Test
    void servesItsOpenApiDocumentAndSwaggerUiOnIt() throws Exception {
        assertThat(system.get("/v1/openapi?format=json").get("openapi").asText())
                .startsWith("3.1.");
        assertThat(system.text("/q/swagger-ui/")).contains("/v1/openapi");
    }

    @Test
    void theReadyLineSaysHowRunsAreHeldIn() {
        if ("root".equals(System.getProperty("user.name"))) {
            assertThat(system.output()).contains("| runs isolated (a user of its own each, no network)");
        } else {
            assertThat(system.output())
                    .contains("| runs NOT isolated (this runner is not root")
                    .contains("WARNING: runs are NOT isolated");
        }
    }

    @Test
    void aOnceJobRunsExactlyOnceOnTimeWithItsOutputInTheLog() throws Exception {
        Instant at = Instant.now().plusSeconds(3).truncatedTo(ChronoUnit.MILLIS);
        JsonNode job = system.post(
                "/v1/jobs",
                Map.of("name", "once", "binaryId", binaryId, "schedule", Map.of("type", "once", "at", at.toString())),
                201);
        String id = job.get("id").asText();
        assertThat(job.get("nextRunAt").asText()).isEqualTo(at.toString());

        JsonNode run = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> latestRun(id),
                        r -> r != null && "SUCCEEDED".equals(r.get("state").asText()));
        assertThat(system.get("/v1/jobs/" + id + "/runs?future=true").get("items"))
                .hasSize(1);
        assertThat(run.get("attempt").asInt()).isEqualTo(1);
        assertThat(run.get("exitCode").asInt()).isZero();
        Duration lateness = LocalSystem.between(run, "scheduledAt", "startedAt");
        System.out.println(
                "[e2e] once job: scheduledAt " + run.get("scheduledAt").asText() + ", startedAt "
                        + run.get("startedAt").asText() + ", lateness " + lateness.toMillis() + " ms");
        assertThat(lateness).isBetween(Duration.ZERO, Duration.ofSeconds(1));
        String log = system.text("/v1/jobs/" + id + "/runs/" + run.get("runId").asText() + "/log");
        assertThat(log)
                .contains("hello from run " + run.get("runId").asText() + " attempt 1")
                .contains("stderr is captured too");
    }

    @Test
    void servesTheMetersAsPrometheusTextAtQMetrics() throws Exception {
        JsonNode job = system.post(
                "/v1/jobs", Map.of("name", "metered", "binaryId", binaryId, "schedule", Map.of("type", "now")), 201);
        String id = job.get("id").asText();
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> latestRun(id),
                        r -> r != null && "SUCCEEDED".equals(r.get("state").asText()));
        // The executors run in this process: one registry sees their runs, their slots and the sweeper's samples.
        String metrics = system.text("/q/metrics");
        assertThat(metrics)
                .containsPattern("(?m)^punctual_runs_total\\{.*state=\"STARTED\".*} [1-9]")
                .containsPattern("(?m)^punctual_runs_total\\{.*state=\"SUCCEEDED\".*} [1-9]")
                .containsPattern("(?m)^punctual_start_lateness_seconds_count(\\{.*})? [1-9]")
                .contains("punctual_start_lateness_seconds_bucket")
                .containsPattern("(?m)^punctual_executor_slots(\\{.*})? [1-9]")
                .containsPattern("(?m)^punctual_executor_slots_busy(\\{.*})? ")
                .containsPattern("(?m)^punctual_queue_messages\\{.*state=\"visible\".*} ");
    }

    @Test
    void aFailingBinaryIsRetriedAndEndsDeadAfterExactlyMaxAttempts() throws Exception {
        JsonNode job = system.post(
                "/v1/jobs",
                Map.of(
                        "name",
                        "exit-3",
                        "binaryId",
                        binaryId,
                        "args",
                        List.of("3"),
                        "schedule",
                        Map.of("type", "now"),
                        "maxAttempts",
                        3),
                201);
        String id = job.get("id").asText();
        JsonNode run = await().atMost(Duration.ofSeconds(60))
                .until(
                        () -> latestRun(id),
                        r -> r != null && "DEAD".equals(r.get("state").asText()));
        assertThat(run.get("attempt").asInt()).isEqualTo(3);
        assertThat(run.get("exitCode").asInt()).isEqualTo(3);
        assertThat(run.get("error").asText()).contains("exited with code 3");
        assertThat(system.text("/v1/jobs/" + id + "/runs/" + run.get("runId").asText() + "/log"))
                .contains("attempt 3");
    }

    @Test
    void anIntervalJobRunsRepeatedlyAndNoRunStartsAfterDelete() throws Exception {
        JsonNode job = system.post(
                "/v1/jobs",
                Map.of(
                        "name",
                        "every-5s",
                        "binaryId",
                        binaryId,
                        "schedule",
                        Map.of("type", "interval", "every", "PT5S")),
                201);
        String id = job.get("id").asText();
        await().atMost(Duration.ofSeconds(40)).until(() -> started(id) >= 2);
        assertThat(system.delete("/v1/jobs/" + id)).isEqualTo(204);
        Instant deletedAt = Instant.now();
        // A run started before the delete answered may still finish; after that, nothing more runs. (A run claimed
        // ahead of its instant whose job's check came first started during the delete, which waited for it; one
        // checked after the delete shows RUNNING for a moment, then CANCELLED: it never ran.)
        await().atMost(Duration.ofSeconds(10))
                .until(() -> runs(id).stream()
                        .noneMatch(r -> "RUNNING".equals(r.get("state").asText())));
        long ran = ran(id);
        await().during(Duration.ofSeconds(12)).atMost(Duration.ofSeconds(20)).until(() -> ran(id) == ran);
        assertThat(runs(id))
                .filteredOn(r -> instant(r, "scheduledAt").isAfter(deletedAt))
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.get("state").asText())
                        .as("due after the delete: %s", r)
                        .isIn("CANCELLED", "SCHEDULED", "QUEUED"));
        assertThat(system.get("/v1/jobs/" + id).get("state").asText()).isEqualTo("DELETED");
    }

    /**
     * Issue 3: a seconds-level cron runs on time, nothing starts while the job is paused, and resuming with
     * {@code catchUp: latest} runs the most recent missed occurrence once, after which the schedule carries on.
     */
    @Test
    void aSecondsCronRunsOnTimeAndResumingWithLatestRunsOnlyTheLatestMissedOccurrence() throws Exception {
        // Created early in a 5-second slot, so the first occurrence is not a race with the creation itself.
        awaitSlotPhase(Duration.ofMillis(500), Duration.ofMillis(2500));
        JsonNode job = system.post(
                "/v1/jobs",
                Map.of(
                        "name",
                        "cron-every-5s",
                        "binaryId",
                        binaryId,
                        "schedule",
                        Map.of("type", "cron", "expression", "*/5 * * * * *", "timezone", "UTC")),
                201);
        String id = job.get("id").asText();
        Instant created = Instant.parse(job.get("createdAt").asText());
        boolean deleted = false;
        try {
            // Three runs, on the first three occurrences after creation, each started within 1 s of its due time.
            List<JsonNode> first = await().atMost(Duration.ofSeconds(60))
                    .until(
                            () -> runs(id).stream()
                                    .filter(r ->
                                            "SUCCEEDED".equals(r.get("state").asText()))
                                    .limit(3)
                                    .toList(),
                            l -> l.size() == 3);
            List<Long> lateness = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                JsonNode r = first.get(i);
                Instant at = instant(r, "scheduledAt");
                assertThat(at.toEpochMilli() % STEP.toMillis())
                        .as("on a multiple of 5 s: %s", at)
                        .isZero();
                assertThat(at).isEqualTo(ceilToStep(created).plus(STEP.multipliedBy(i)));
                assertThat(r.get("runId").asText()).isNotBlank();
                assertThat(r.get("attempt").asInt()).isEqualTo(1);
                Duration late = LocalSystem.between(r, "scheduledAt", "startedAt");
                lateness.add(late.toMillis());
                assertThat(late).as("lateness of the run due %s", at).isBetween(Duration.ZERO, Duration.ofSeconds(1));
            }

            // Pause mid-slot: the run due before has started, the next is 2-3 s away.
            awaitSlotPhase(Duration.ofMillis(2000), Duration.ofMillis(3000));
            JsonNode paused = system.post("/v1/jobs/" + id + "/pause", Map.of(), 200);
            assertThat(paused.get("state").asText()).isEqualTo("PAUSED");
            assertThat(paused.path("nextRunAt").isNull()
                            || paused.path("nextRunAt").isMissingNode())
                    .isTrue();
            Instant pausedAt = Instant.parse(paused.get("pausedAt").asText());
            Instant lastBeforePause = floorToStep(pausedAt);

            // Let at least two occurrences pass while paused (polling the clock); the runs queued for them before the
            // pause must not start: the executor cancels each when its message arrives.
            Instant twoMissed = lastBeforePause.plus(STEP.multipliedBy(2));
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Instant.now().isAfter(twoMissed.plusSeconds(1)));
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                Instant now = Instant.now();
                for (JsonNode r : runs(id)) {
                    Instant at = instant(r, "scheduledAt");
                    if (!at.isBefore(pausedAt) && at.isBefore(now.minusSeconds(1))) {
                        assertCancelledByPause(r);
                    }
                }
            });
            assertThat(system.get("/v1/jobs/" + id).get("state").asText()).isEqualTo("PAUSED");
            assertThat(startedAfter(runs(id), pausedAt))
                    .as("runs started while paused")
                    .isEmpty();

            // Resume mid-slot as well, so the latest missed occurrence is unambiguous and its queued run has been
            // cancelled 2-3 s before: a run of it after the resume can only be the catch-up.
            awaitSlotPhase(Duration.ofMillis(2000), Duration.ofMillis(3000));
            List<JsonNode> justBeforeResume = runs(id);
            Instant beforeResume = Instant.now();
            JsonNode resumed = system.post("/v1/jobs/" + id + "/resume", Map.of("catchUp", "latest"), 200);
            Instant afterResume = Instant.now();
            assertThat(resumed.get("state").asText()).isEqualTo("ACTIVE");
            // The server's resume instant lies between these two (the job's updatedAt does not show it: dispatching
            // the new pending run updates the job again), and no occurrence falls between them.
            Instant resumedAt = beforeResume;
            Duration resumeCall = Duration.between(beforeResume, afterResume);
            Instant latestMissed = floorToStep(resumedAt);
            assertThat(floorToStep(afterResume))
                    .as("resume request took %s", resumeCall)
                    .isEqualTo(latestMissed);
            assertThat(latestMissed).isAfterOrEqualTo(pausedAt).isAfterOrEqualTo(twoMissed);
            Instant firstAfterResume = latestMissed.plus(STEP);
            // Every missed occurrence has a run, queued (within the 2-minute lookahead) before the pause, and just
            // before the resume each of them was CANCELLED, never started.
            List<Instant> missed = new ArrayList<>();
            for (Instant t = lastBeforePause.plus(STEP); !t.isAfter(latestMissed); t = t.plus(STEP)) {
                missed.add(t);
            }
            List<JsonNode> cancelled = scheduledIn(justBeforeResume, pausedAt, resumedAt);
            assertThat(cancelled.stream().map(r -> instant(r, "scheduledAt")).toList())
                    .isEqualTo(missed);
            cancelled.forEach(LocalSystemIT::assertCancelledByPause);

            // The regular runs carry on: the first occurrence after the resume runs on time.
            JsonNode next = await().atMost(Duration.ofSeconds(30))
                    .until(
                            () -> run(id, firstAfterResume),
                            r -> r != null && "SUCCEEDED".equals(r.get("state").asText()));
            Duration nextLate = LocalSystem.between(next, "scheduledAt", "startedAt");
            assertThat(nextLate).isBetween(Duration.ZERO, Duration.ofSeconds(1));

            // Exactly one run of the paused window started: the latest missed occurrence, run at the resume.
            List<JsonNode> all = runs(id);
            List<JsonNode> window = scheduledIn(all, pausedAt, resumedAt);
            assertThat(window.stream().map(r -> instant(r, "scheduledAt")).toList())
                    .isEqualTo(missed);
            List<JsonNode> caughtUp = window.stream()
                    .filter(r -> !"CANCELLED".equals(r.get("state").asText()))
                    .toList();
            assertThat(caughtUp).hasSize(1);
            JsonNode catchUp = caughtUp.get(0);
            assertThat(instant(catchUp, "scheduledAt")).isEqualTo(latestMissed);
            assertThat(catchUp.get("state").asText()).isEqualTo("SUCCEEDED");
            assertThat(catchUp.get("attempt").asInt()).isEqualTo(1);
            assertThat(catchUp.get("exitCode").asInt()).isZero();
            assertThat(catchUp.get("runId").asText())
                    .as("the occurrence's own runId")
                    .isEqualTo(cancelled.getLast().get("runId").asText());
            Duration catchUpDelay = Duration.between(resumedAt, instant(catchUp, "startedAt"));
            assertThat(catchUpDelay)
                    .as("catch-up run started at the resume")
                    .isBetween(Duration.ZERO, Duration.ofSeconds(1));
            for (JsonNode r : window) {
                if (r != catchUp) {
                    assertCancelledByPause(r);
                }
            }
            assertThat(startedAfter(all, pausedAt).stream()
                            .filter(r -> instant(r, "startedAt").isBefore(resumedAt)))
                    .as("runs started while paused")
                    .isEmpty();
            // Before the pause: every occurrence from the first ran, on its 5-second grid, up to the last one.
            List<Instant> before = all.stream()
                    .map(r -> instant(r, "scheduledAt"))
                    .filter(at -> at.isBefore(pausedAt))
                    .sorted()
                    .toList();
            assertThat(before).first().isEqualTo(ceilToStep(created));
            assertThat(before).last().isEqualTo(lastBeforePause);
            for (int i = 1; i < before.size(); i++) {
                assertThat(Duration.between(before.get(i - 1), before.get(i))).isEqualTo(STEP);
            }
            assertThat(all.stream().filter(r -> instant(r, "scheduledAt").isBefore(pausedAt)))
                    .allSatisfy(r -> assertThat(r.get("state").asText()).isEqualTo("SUCCEEDED"));

            System.out.println("[e2e] cron */5 s: lateness of runs 1-3 " + lateness + " ms; paused at " + pausedAt
                    + ", resume sent at " + resumedAt + " (answered in " + resumeCall.toMillis() + " ms; "
                    + missed.size() + " occurrences missed, " + (window.size() - 1) + " stay cancelled); catch-up "
                    + "run for " + latestMissed + " ("
                    + Duration.between(latestMissed, resumedAt).toMillis()
                    + " ms before the resume) started " + catchUpDelay.toMillis() + " ms after the resume; next run "
                    + firstAfterResume + " lateness " + nextLate.toMillis() + " ms");
            assertThat(system.delete("/v1/jobs/" + id)).isEqualTo(204);
            deleted = true;
        } finally {
            if (!deleted) {
                system.delete("/v1/jobs/" + id); // so a failure here does not leave it running under other tests
            }
        }
    }

    private static JsonNode latestRun(String jobId) throws Exception {
        JsonNode items =
                system.get("/v1/jobs/" + jobId + "/runs?future=true&limit=1").get("items");
        return items.isEmpty() ? null : items.get(0);
    }

    /** How many of the job's runs ended having run their binary. */
    private static long ran(String jobId) throws Exception {
        return runs(jobId).stream()
                .filter(r -> Set.of("SUCCEEDED", "FAILED", "DEAD")
                        .contains(r.get("state").asText()))
                .count();
    }

    private static long started(String jobId) throws Exception {
        long n = 0;
        for (JsonNode r :
                system.get("/v1/jobs/" + jobId + "/runs?future=true&limit=100").get("items")) {
            if (r.get("attempt").asInt() > 0) {
                n++;
            }
        }
        return n;
    }

    private static final Duration STEP = Duration.ofSeconds(5);

    /** Every run of the job (all pages), oldest occurrence first. */
    private static List<JsonNode> runs(String jobId) throws Exception {
        List<JsonNode> all = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = system.get("/v1/jobs/" + jobId + "/runs?future=true&limit=100"
                    + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)));
            page.get("items").forEach(all::add);
            cursor =
                    page.path("nextCursor").isTextual() ? page.get("nextCursor").asText() : null;
        } while (cursor != null);
        all.sort(Comparator.comparing(r -> instant(r, "scheduledAt")));
        return all;
    }

    private static JsonNode run(String jobId, Instant scheduledAt) throws Exception {
        return runs(jobId).stream()
                .filter(r -> instant(r, "scheduledAt").equals(scheduledAt))
                .findFirst()
                .orElse(null);
    }

    private static List<JsonNode> startedAfter(List<JsonNode> runs, Instant t) {
        return runs.stream()
                .filter(r ->
                        r.hasNonNull("startedAt") && instant(r, "startedAt").isAfter(t))
                .toList();
    }

    /** A run queued before the pause whose message arrived while the job was paused: cancelled, never started. */
    /** The runs scheduled in [{@code from}, {@code until}). */
    private static List<JsonNode> scheduledIn(List<JsonNode> runs, Instant from, Instant until) {
        return runs.stream()
                .filter(r -> !instant(r, "scheduledAt").isBefore(from)
                        && instant(r, "scheduledAt").isBefore(until))
                .toList();
    }

    private static void assertCancelledByPause(JsonNode r) {
        assertThat(r.get("state").asText()).as("state of %s", r).isEqualTo("CANCELLED");
        assertThat(r.get("error").asText()).as("error of %s", r).isEqualTo("job paused");
        assertThat(r.get("attempt").asInt()).as("attempt of %s", r).isZero();
        assertThat(r.hasNonNull("startedAt")).as("started: %s", r).isFalse();
    }

    private static Instant instant(JsonNode run, String field) {
        return Instant.parse(run.get(field).asText());
    }

    private static Instant floorToStep(Instant t) {
        return Instant.ofEpochMilli(Math.floorDiv(t.toEpochMilli(), STEP.toMillis()) * STEP.toMillis());
    }

    private static Instant ceilToStep(Instant t) {
        Instant floor = floorToStep(t);
        return floor.equals(t) ? t : floor.plus(STEP);
    }

    /** Waits (polling the clock) until the time is between {@code from} and {@code to} into a 5-second slot. */
    private static void awaitSlotPhase(Duration from, Duration to) {
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    long phase = Math.floorMod(System.currentTimeMillis(), STEP.toMillis());
                    return phase >= from.toMillis() && phase < to.toMillis();
                });
    }
}
