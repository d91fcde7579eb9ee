package dev.punctual.core.notify;

import dev.punctual.core.config.WebhookMode;
import dev.punctual.core.job.JobRepository;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Posts a notice to its job's webhook: the event's detail as the body, signed with the job's secret. Tried up to
 * {@value #TRIES} times (a refused connection, a timeout, 408, 429 or 5xx), with backoff; another answer, a redirect
 * (never followed: it could lead anywhere) or a target {@link WebhookTargets} refuses ends it. The receiver verifies
 * {@value #SIGNATURE}: {@code t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the secret>}, and may
 * reject an old {@code t} (a replay); {@value #EVENT_ID} repeats the detail's {@code id}, for dropping a repeat.
 */
public final class Webhooks {
    private static final System.Logger LOG = System.getLogger(Webhooks.class.getName());

    public static final String SIGNATURE = "Punctual-Signature";
    public static final String EVENT_ID = "Punctual-Event-Id";
    static final int TRIES = 3;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    /** How a delivery ended. */
    public enum Outcome {
        DELIVERED,
        REFUSED_TARGET,
        NO_SECRET,
        FAILED
    }

    private final JobRepository jobs;
    private final Clock clock;
    private final WebhookMode mode;
    private final Duration firstBackoff;
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(CONNECT_TIMEOUT)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    public Webhooks(JobRepository jobs, Clock clock, WebhookMode mode, Duration firstBackoff) {
        this.jobs = jobs;
        this.clock = clock;
        this.mode = mode;
        this.firstBackoff = firstBackoff;
    }

    /** Posts {@code notice} to its webhook ({@code notice.webhook()}, not null). */
    public Outcome deliver(Notice notice) throws InterruptedException {
        URI url = URI.create(notice.webhook().url());
        Optional<String> refused = WebhookTargets.refusal(url, mode);
        if (refused.isPresent()) {
            LOG.log(Level.WARNING, "webhook of job " + notice.jobId() + " not posted: " + refused.get());
            return Outcome.REFUSED_TARGET;
        }
        Optional<String> secret = jobs.webhookSecret(notice.jobId());
        if (secret.isEmpty()) {
            // Replaced or deleted since the publisher read it: the job no longer asks for this post.
            LOG.log(Level.INFO, "webhook of job " + notice.jobId() + " not posted: it has no secret any more");
            return Outcome.NO_SECRET;
        }
        String body = notice.detailJson();
        String why = null;
        for (int attempt = 0; attempt < TRIES; attempt++) {
            if (attempt > 0) {
                Thread.sleep(
                        firstBackoff.multipliedBy(1L << (2 * (attempt - 1))).toMillis());
            }
            long t = clock.instant().getEpochSecond();
            HttpRequest request = HttpRequest.newBuilder(url)
                    .timeout(REQUEST_TIMEOUT)
                    .header("Content-Type", "application/json")
                    .header("User-Agent", "Punctual-Webhook/1")
                    .header(EVENT_ID, notice.id())
                    .header(SIGNATURE, "t=" + t + ",v1=" + sign(secret.get(), t, body))
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                    .build();
            try {
                int status = http.send(request, HttpResponse.BodyHandlers.discarding())
                        .statusCode();
                if (status / 100 == 2) {
                    return Outcome.DELIVERED;
                }
                why = "answered " + status;
                if (!(status == 408 || status == 429 || status >= 500)) {
                    break;
                }
            } catch (IOException e) {
                why = e.toString();
            }
        }
        LOG.log(Level.WARNING, "webhook of job " + notice.jobId() + " not delivered (" + why + "): " + body);
        return Outcome.FAILED;
    }

    /** The signature of {@code body} sent at {@code t}: hex HMAC-SHA256 of {@code "<t>.<body>"}. */
    public static String sign(String secret, long t, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal((t + "." + body).getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
