package dev.punctual.sweeper;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.punctual.core.config.Settings;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.sweep.Sweeper;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * Fired by EventBridge every minute, once per sweep worker: each target of the rule gives its invocation
 * {@code {"worker": i, "workers": n}}, and the sweep covers the due index's shards that are i modulo n (an event
 * without them covers every shard). Nothing else of the event matters (a sweep always works from the persisted
 * watermarks), so it is taken as a plain map: duplicate, late or missed invocations are all safe. The sweep sends
 * nothing after its deadline: the invocation's end, less {@link #NOTICES_WAIT} and {@link #MARGIN}. The sweep's
 * report is the Lambda's result (instants as ISO-8601 strings), registered for reflection so that a native build
 * can write it.
 */
@Named("sweep")
@RegisterForReflection(targets = Sweeper.SweepReport.class)
public class SweepHandler implements RequestHandler<Map<String, Object>, Sweeper.SweepReport> {
    private static final Logger LOG = Logger.getLogger(SweepHandler.class);

    /** How long a sweep waits for the outcomes it wrote (catch-up skips, dead letters) to be published. */
    static final Duration NOTICES_WAIT = Duration.ofSeconds(10);

    /**
     * What a sweep keeps of its invocation after its last send: the chains under way finish their writes (a
     * transaction and a mark, tens of ms), then the watch checks, the watermarks, the dead-letter queue and the
     * queue's depth.
     */
    static final Duration MARGIN = Duration.ofSeconds(5);

    private final Sweeper sweeper;
    private final RunNotices notices;
    private final Clock clock;
    private final Duration sweepPeriod;

    @Inject
    SweepHandler(Sweeper sweeper, RunNotices notices, Clock clock, Settings settings) {
        this.sweeper = sweeper;
        this.notices = notices;
        this.clock = clock;
        this.sweepPeriod = settings.sweep().period();
    }

    @Override
    public Sweeper.SweepReport handleRequest(Map<String, Object> event, Context context) {
        Sweeper.SweepReport r = sweeper.sweep(deadline(context), worker(event));
        LOG.infof("sweep %s", r);
        try {
            // A Lambda's sandbox is frozen once it returns: what it has not published by then would wait for the
            // next invocation, or be lost with the sandbox.
            if (!notices.flush(NOTICES_WAIT)) {
                LOG.warnf("run notices still unpublished after %s", NOTICES_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (r.deferred() > 0) {
            LOG.warnf("%d runs left for the next sweep: the invocation's end came first", r.deferred());
        }
        if (r.failed() > 0) {
            // Reported as success: the failed runs stay SCHEDULED and the next sweep retries them; a Lambda retry
            // would only repeat the same work sooner.
            LOG.warnf("%d runs could not be queued this sweep", r.failed());
        }
        return r;
    }

    /**
     * When the sweep stops sending. A context that knows no end (Quarkus's mock event server gives a remaining time
     * in the past) gets a sweep period, as the next sweep comes then anyway.
     */
    Instant deadline(Context context) {
        Instant now = clock.instant();
        long remaining = context == null ? 0 : context.getRemainingTimeInMillis();
        if (remaining <= 0) {
            return now.plus(sweepPeriod);
        }
        return now.plusMillis(remaining).minus(NOTICES_WAIT).minus(MARGIN);
    }

    /** The event's {@code worker} and {@code workers} (numbers, or numbers as text); every shard without them. */
    static Sweeper.Worker worker(Map<String, Object> event) {
        Object index = event == null ? null : event.get("worker");
        Object of = event == null ? null : event.get("workers");
        if (index == null && of == null) {
            return Sweeper.Worker.ALL;
        }
        if (index == null || of == null) {
            throw new IllegalArgumentException("a sweep event names both worker and workers, or neither: " + event);
        }
        return new Sweeper.Worker(Integer.parseInt(index.toString()), Integer.parseInt(of.toString()));
    }
}
