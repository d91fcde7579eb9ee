package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.punctual.core.Punctual;
import dev.punctual.core.config.WebhookMode;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.notify.Webhooks;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.ExpectSpec;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.PauseRequest;
import dev.punctual.core.service.ResumeRequest;
import dev.punctual.core.service.WebhookRequest;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import dev.punctual.core.time.Window;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A job's expectation (the dead-man's switch), on the emulators with a clock the test moves: the sweeper reports a
 * job overdue when no run of it succeeded in time, also when no run happened at all, once per window, to the job's
 * signed webhook; a success moves the window on; a deadline schedule ({@code by}) wants a success before each
 * deadline; a paused job is not overdue, a deleted one loses its watch; a bad expectation is refused, naming its field.
 */
class WatchTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SECRET = "a-signing-secret-of-the-tenant";

    private final List<String> posts = new CopyOnWriteArrayList<>();
    private final HttpServer receiver = start();

    private HttpServer start() {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            s.createContext("/hook", x -> {
                String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                String signature = x.getRequestHeaders().getFirst(Webhooks.SIGNATURE);
                long t = Long.parseLong(signature.split(",")[0].substring(2));
                // Only posts signed with the job's secret count.
                if (signature.endsWith("v1=" + Webhooks.sign(SECRET, t, body))) {
                    posts.add(body);
                }
                x.sendResponseHeaders(200, -1);
                x.close();
            });
            s.start();
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
    }

    private final Instant t0 = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    private final SettableClock clock = new SettableClock(t0);
    private final Punctual p =
            Fixture.stack(TestStack.isolatedSettings().webhooks(WebhookMode.ANY).build(), clock);
    private final String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("echo hi"));

    private WebhookRequest hook() {
        return new WebhookRequest("http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook", SECRET, null);
    }

    /**
     * Hourly from ten minutes on: nothing runs here (no executor), so only what the test writes succeeds. Then a
     * sweep, as the sweeper's every minute would have swept by then (its watermark starts where it first stands).
     */
    private JobView watched(ExpectSpec expect) {
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("watched", binaryId, Fixture.interval(Duration.ofHours(1), t0.plusSeconds(600)))
                        .webhook(hook())
                        .expect(expect)
                        .build());
        p.sweeper.sweep();
        return job;
    }

    /** Sweeps at {@code t}, then waits for every post under way. */
    private void sweepAt(Instant t) throws InterruptedException {
        clock.set(t);
        p.sweeper.sweep();
        assertThat(p.notices.flush(Duration.ofSeconds(10))).isTrue();
    }

    private Run firstRun(JobView job) {
        return Fixture.run(p, job.id(), RunIds.forOccurrence(t0.plusSeconds(600)));
    }

    /** What an executor writes when the job's run {@code run} succeeds at {@code at}. */
    private void succeed(String jobId, Run run, Instant at) {
        assertThat(Fixture.claim(p, jobId, run.runId(), "ex-1", at, Duration.ofMinutes(5))
                        .won())
                .isTrue();
        assertThat(p.runs.apply(Fixture.outcome(Transition.SUCCEED, jobId, run.runId(), at, 1, "ex-1", 0))
                        .won())
                .isTrue();
    }

    private Window window(String jobId) {
        return p.watches.get(jobId).orElseThrow().window();
    }

    @Test
    void noSuccessWithinEveryIsReportedOnceAPeriodEvenWithNoRunAtAllAndASuccessMovesTheWindow() throws Exception {
        JobView job = watched(new ExpectSpec("PT30M", null));
        assertThat(job.expect()).isEqualTo(new ExpectSpec("PT30M", null));
        assertThat(window(job.id())).isEqualTo(new Window(t0, t0.plus(Duration.ofMinutes(30))));

        sweepAt(t0.plus(Duration.ofMinutes(29)));
        assertThat(posts).isEmpty();

        sweepAt(t0.plus(Duration.ofMinutes(31)));
        await().atMost(Duration.ofSeconds(10)).until(() -> posts.size() == 1);
        JsonNode d = JSON.readTree(posts.get(0));
        assertThat(d.get("state").asText()).isEqualTo("OVERDUE");
        assertThat(d.get("jobId").asText()).isEqualTo(job.id());
        assertThat(d.get("tenant").asText()).isEqualTo(OWNER);
        assertThat(d.get("since").asText()).isEqualTo(t0.toString());
        assertThat(d.get("deadline").asText())
                .isEqualTo(t0.plus(Duration.ofMinutes(30)).toString());
        assertThat(d.get("expect").get("every").asText()).isEqualTo("PT30M");
        assertThat(d.get("id").asText()).isEqualTo(job.id() + "/overdue/" + t0.plus(Duration.ofMinutes(30)));
        // Still no success since t0: reported again a period after the report, not at every sweep.
        assertThat(window(job.id())).isEqualTo(new Window(t0, t0.plus(Duration.ofMinutes(61))));
        sweepAt(t0.plus(Duration.ofMinutes(32)));
        assertThat(posts).hasSize(1);

        // The first run (due at t0 + 10 min) succeeds at t0 + 40 min: the next check finds it and moves on.
        succeed(job.id(), firstRun(job), t0.plus(Duration.ofMinutes(40)));
        sweepAt(t0.plus(Duration.ofMinutes(62)));
        assertThat(posts).hasSize(1);
        assertThat(window(job.id()))
                .isEqualTo(new Window(t0.plus(Duration.ofMinutes(40)), t0.plus(Duration.ofMinutes(70))));
    }

    @Test
    void aDeadlineScheduleWantsASuccessBeforeEachDeadlineSinceTheOneBefore() throws Exception {
        ScheduleSpec deadlines = Fixture.interval(Duration.ofMinutes(30), t0.plus(Duration.ofMinutes(20)));
        JobView job = watched(new ExpectSpec(null, deadlines));
        Instant d1 = t0.plus(Duration.ofMinutes(20));
        Instant d2 = d1.plus(Duration.ofMinutes(30));
        assertThat(window(job.id())).isEqualTo(new Window(t0, d1));

        // A success before the first deadline: nothing to report, the window is the next deadline's.
        succeed(job.id(), firstRun(job), t0.plus(Duration.ofMinutes(15)));
        sweepAt(d1.plusSeconds(30));
        assertThat(posts).isEmpty();
        assertThat(window(job.id())).isEqualTo(new Window(d1, d2));

        // None before the second: that success was the first window's, not this one's.
        sweepAt(d2.plusSeconds(30));
        await().atMost(Duration.ofSeconds(10)).until(() -> posts.size() == 1);
        JsonNode d = JSON.readTree(posts.get(0));
        assertThat(d.get("since").asText()).isEqualTo(d1.toString());
        assertThat(d.get("deadline").asText()).isEqualTo(d2.toString());
        assertThat(d.get("expect").get("by").get("type").asText()).isEqualTo("interval");
        assertThat(window(job.id())).isEqualTo(new Window(d2, d2.plus(Duration.ofMinutes(30))));
    }

    @Test
    void aPausedJobIsNotOverdueAResumeStartsAfreshAndADeleteEndsTheWatch() throws Exception {
        JobView job = watched(new ExpectSpec("PT30M", null));
        p.lifecycle.pause(OWNER, job.id(), new PauseRequest("maintenance"));

        Instant later = t0.plus(Duration.ofMinutes(45));
        sweepAt(later);
        assertThat(posts).isEmpty();
        assertThat(window(job.id())).isEqualTo(new Window(later, later.plus(Duration.ofMinutes(30))));

        Instant resumed = later.plus(Duration.ofMinutes(20));
        clock.set(resumed);
        p.lifecycle.resume(OWNER, job.id(), new ResumeRequest("skip"));
        assertThat(window(job.id())).isEqualTo(new Window(resumed, resumed.plus(Duration.ofMinutes(30))));

        p.deletions.delete(OWNER, job.id());
        assertThat(p.watches.get(job.id())).isEmpty();
        sweepAt(resumed.plus(Duration.ofHours(1)));
        assertThat(posts).isEmpty();
    }

    @Test
    void aReplaceThatChangesTheExpectationRearmsItAndOneThatDropsItEndsTheWatch() {
        JobView job = watched(new ExpectSpec("PT30M", null));
        Instant replaced = t0.plus(Duration.ofMinutes(5));
        clock.set(replaced);
        JobRequest.Builder same = JobRequest.builder(
                        "watched", binaryId, Fixture.interval(Duration.ofHours(1), t0.plusSeconds(600)))
                .webhook(new WebhookRequest(hook().url(), null, null));

        JobView kept = p.jobService.update(
                OWNER,
                job.id(),
                job.etag(),
                same.expect(new ExpectSpec("PT30M", null)).build());
        assertThat(window(job.id())).isEqualTo(new Window(t0, t0.plus(Duration.ofMinutes(30))));

        JobView longer = p.jobService.update(
                OWNER,
                job.id(),
                kept.etag(),
                same.expect(new ExpectSpec("PT2H", null)).build());
        assertThat(window(job.id())).isEqualTo(new Window(replaced, replaced.plus(Duration.ofHours(2))));

        p.jobService.update(OWNER, job.id(), longer.etag(), same.expect(null).build());
        assertThat(p.watches.get(job.id())).isEmpty();
    }

    @Test
    void aBadExpectationIsRefusedNamingItsFieldAndNothingIsWritten() {
        assertThatThrownBy(() -> watched(new ExpectSpec("PT30S", null)))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors()).extracting(f -> f.field()).containsExactly("expect.every"));
        assertThatThrownBy(() -> watched(new ExpectSpec("soon", null)))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors()).extracting(f -> f.field()).containsExactly("expect.every"));
        assertThatThrownBy(() -> watched(new ExpectSpec("PT1H", ScheduleSpec.now())))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors()).extracting(f -> f.field()).containsExactly("expect"));
        assertThatThrownBy(() -> watched(new ExpectSpec(null, ScheduleSpec.now())))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors()).extracting(f -> f.field()).containsExactly("expect.by.type"));
        assertThatThrownBy(() ->
                        watched(new ExpectSpec(null, ScheduleSpec.cron("0 6 * * *", "Mars/Olympus", null, null, null))))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors()).extracting(f -> f.field()).containsExactly("expect.by.timezone"));
        assertThat(p.jobService.list(OWNER, null, null).items()).isEmpty();
    }
}
