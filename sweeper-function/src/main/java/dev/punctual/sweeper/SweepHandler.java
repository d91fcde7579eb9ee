package dev.punctual.sweeper;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.punctual.core.Punctual;
import dev.punctual.core.sweep.Sweeper;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.Duration;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * Fired by EventBridge every minute. The event's content does not matter (a sweep always works from the persisted
 * watermark), so it is taken as a plain map: duplicate, late or missed invocations are all safe. The sweep's report is
 * the Lambda's result (instants as ISO-8601 strings), registered for reflection so that a native build can write it.
 */
@Named("sweep")
@RegisterForReflection(targets = Sweeper.SweepReport.class)
public class SweepHandler implements RequestHandler<Map<String, Object>, Sweeper.SweepReport> {
    private static final Logger LOG = Logger.getLogger(SweepHandler.class);

    /** How long a sweep waits for the outcomes it wrote (catch-up skips, dead letters) to be published. */
    static final Duration NOTICES_WAIT = Duration.ofSeconds(10);

    @Inject
    Punctual punctual;

    @Override
    public Sweeper.SweepReport handleRequest(Map<String, Object> event, Context context) {
        Sweeper.SweepReport r = punctual.sweeper.sweep();
        LOG.infof("sweep %s", r);
        try {
            // A Lambda's sandbox is frozen once it returns: what it has not published by then would wait for the
            // next invocation, or be lost with the sandbox.
            if (!punctual.notices.flush(NOTICES_WAIT)) {
                LOG.warnf("run notices still unpublished after %s", NOTICES_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (r.failed() > 0) {
            // Reported as success: the failed runs stay SCHEDULED and the next sweep retries them; a Lambda retry
            // would only repeat the same work sooner.
            LOG.warnf("%d runs could not be queued this sweep", r.failed());
        }
        return r;
    }
}
