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
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.WebhookRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's webhook, end to end on the emulators: the executor posts the outcomes the job asks for, signed with its
 * secret, retries a receiver that fails for a moment, and posts nothing else; the API checks the webhook before
 * anything is written, keeps its secret write-only and drops it with the webhook or the job.
 */
class WebhookDeliveryTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SECRET = "a-signing-secret-of-the-tenant";

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    @TempDir
    Path tmp;

    /** One POST as received. */
    record Post(String eventId, String signature, String body) {
        JsonNode detail() throws IOException {
            return JSON.readTree(body);
        }
    }

    private final List<Post> posts = new CopyOnWriteArrayList<>();
    /** Statuses to answer, in turn; 200 once they run out. */
    private final ConcurrentLinkedQueue<Integer> statuses = new ConcurrentLinkedQueue<>();

    private final HttpServer receiver = start();

    private HttpServer start() {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            s.createContext("/hook", x -> {
                posts.add(new Post(
                        x.getRequestHeaders().getFirst(Webhooks.EVENT_ID),
                        x.getRequestHeaders().getFirst(Webhooks.SIGNATURE),
                        new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
                Integer status = statuses.poll();
                x.sendResponseHeaders(status == null ? 200 : status, -1);
                x.close();
            });
            s.start();
            return s;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
    }

    private String url() {
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    }

    private Punctual withExecutor() {
        Punctual p =
                Fixture.stack(Fixture.fastRetries().webhooks(WebhookMode.ANY).build(), Clock.systemUTC());
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        return p;
    }

    private static void assertSigned(Post post) {
        String[] parts = post.signature().split(",", -1);
        assertThat(parts[0]).startsWith("t=");
        long t = Long.parseLong(parts[0].substring(2));
        assertThat(Instant.ofEpochSecond(t))
                .isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(1));
        assertThat(parts[1]).isEqualTo("v1=" + Webhooks.sign(SECRET, t, post.body()));
    }

    @Test
    void theOutcomesAJobAsksForArePostedSignedAndNothingElse() throws Exception {
        Punctual p = withExecutor();
        JobView dying = Fixture.createJob(
                p,
                "dies",
                "exit 3",
                ScheduleSpec.now(),
                j -> j.maxAttempts(2).webhook(new WebhookRequest(url(), SECRET, List.of("DEAD"))));
        JobView fine = Fixture.createJob(
                p, "fine", "echo ok", ScheduleSpec.now(), j -> j.webhook(new WebhookRequest(url(), SECRET, null)));

        await().atMost(Duration.ofSeconds(30)).until(() -> !posts.isEmpty());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Fixture.runsOf(p, fine.id()).get(0).state() == RunState.SUCCEEDED);
        assertThat(p.notices.flush(Duration.ofSeconds(10))).isTrue();

        // One post: the run's death. Not its first failed attempt (not asked for), not the other job's success
        // (its webhook asks for the default, DEAD and SKIPPED).
        assertThat(posts).hasSize(1);
        Post post = posts.get(0);
        assertSigned(post);
        JsonNode d = post.detail();
        assertThat(d.get("jobId").asText()).isEqualTo(dying.id());
        assertThat(d.get("state").asText()).isEqualTo("DEAD");
        assertThat(d.get("attempt").asInt()).isEqualTo(2);
        assertThat(d.get("tenant").asText()).isEqualTo(OWNER);
        assertThat(post.eventId()).isEqualTo(d.get("id").asText());
        assertThat(p.jobService.get(OWNER, dying.id()).webhook())
                .isEqualTo(new JobView.WebhookView(url(), List.of("DEAD")));
        assertThat(p.jobService.get(OWNER, fine.id()).webhook().on()).containsExactly("DEAD", "SKIPPED", "OVERDUE");
    }

    @Test
    void aReceiverThatFailsForAMomentIsTriedAgain() {
        Punctual p = withExecutor();
        statuses.add(503);
        Fixture.createJob(
                p,
                "ok",
                "echo ok",
                ScheduleSpec.now(),
                j -> j.webhook(new WebhookRequest(url(), SECRET, List.of("SUCCEEDED"))));

        await().atMost(Duration.ofSeconds(30)).until(() -> posts.size() == 2);
        assertThat(posts.get(0).eventId()).isEqualTo(posts.get(1).eventId());
        assertSigned(posts.get(1));
    }

    @Test
    void theApiRefusesAWebhookThatCouldReachInsideAndWritesNothing() {
        Punctual p = Fixture.stack(Fixture.realTimeSettings().build(), Clock.systemUTC());
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("echo hi"));
        JobRequest.Builder base = JobRequest.builder("hooked", binaryId, ScheduleSpec.now());

        assertThatThrownBy(() -> p.jobService.create(
                        OWNER,
                        base.webhook(new WebhookRequest("https://169.254.169.254/latest", "short", List.of("RUNNING")))
                                .build()))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .extracting(f -> f.field() + ": " + f.message())
                                .containsExactlyInAnyOrder(
                                        "webhook.url: is not a public address",
                                        "webhook.secret: must be 16 to 256 characters",
                                        "webhook.on[0]: must be one of [SUCCEEDED, FAILED, DEAD, CANCELLED, SKIPPED, OVERDUE]"));
        assertThatThrownBy(() -> p.jobService.create(
                        OWNER,
                        base.webhook(new WebhookRequest("https://hooks.example.com/x", null, null))
                                .build()))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors()).extracting(f -> f.field()).containsExactly("webhook.secret"));
        assertThat(p.jobService.list(OWNER, null, null).items()).isEmpty();
    }

    @Test
    void theSecretIsKeptByAReplaceThatLeavesItOutAndGoesWithTheWebhookOrTheJob() {
        Punctual p = Fixture.stack(Fixture.realTimeSettings().build(), Clock.systemUTC());
        String binaryId = Fixture.uploadBinary(p, OWNER, Fixture.script("echo hi"));
        ScheduleSpec daily = Fixture.interval(Duration.ofDays(1), Instant.now().plus(Duration.ofHours(1)));
        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("hooked", binaryId, daily)
                        .webhook(new WebhookRequest("https://hooks.example.com/a", SECRET, null))
                        .build());
        assertThat(p.jobs.webhookSecret(job.id())).hasValue(SECRET);

        JobView moved = p.jobService.update(
                OWNER,
                job.id(),
                job.etag(),
                JobRequest.builder("hooked", binaryId, daily)
                        .webhook(new WebhookRequest("https://hooks.example.com/b", null, List.of("FAILED")))
                        .build());
        assertThat(moved.webhook())
                .isEqualTo(new JobView.WebhookView("https://hooks.example.com/b", List.of("FAILED")));
        assertThat(p.jobs.webhookSecret(job.id())).hasValue(SECRET);

        JobView none = p.jobService.update(
                OWNER,
                job.id(),
                moved.etag(),
                JobRequest.builder("hooked", binaryId, daily).build());
        assertThat(none.webhook()).isNull();
        assertThat(p.jobs.webhookSecret(job.id())).isEmpty();

        JobView again = p.jobService.create(
                OWNER,
                JobRequest.builder("hooked again", binaryId, daily)
                        .webhook(new WebhookRequest("https://hooks.example.com/c", SECRET + "2", null))
                        .build());
        p.deletions.delete(OWNER, again.id());
        assertThat(p.jobs.webhookSecret(again.id())).isEmpty();
    }
}
