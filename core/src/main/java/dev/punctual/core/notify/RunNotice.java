package dev.punctual.core.notify;

import static dev.punctual.core.notify.Details.putIfPresent;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.Webhook;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What happened to a run, as it is published (the "Punctual Run State Change" event, schema version 1, documented in
 * docs/events.md): an outcome of an attempt or of the run. {@code by}: the executor that wrote it, or {@code sweeper}.
 * {@code jobName} and {@code labels} are the job's as the writer read it (absent when it had not read the job).
 * {@code webhook}: the job's, when it asks for this state (not published: where the notice is also posted).
 */
public record RunNotice(
        Instant at,
        String tenant,
        String jobId,
        String jobName,
        Map<String, String> labels,
        String runId,
        Instant scheduledAt,
        Integer attempt,
        RunState state,
        Integer exitCode,
        String error,
        String by,
        Webhook webhook)
        implements Notice {
    public static final String SCHEMA_VERSION = Details.SCHEMA_VERSION;
    public static final String DETAIL_TYPE = "Punctual Run State Change";

    /**
     * The transitions published: every outcome a run's binary or its scheduling reaches. Not the claim, the
     * heartbeats, nor an attempt given back ({@code RELEASE}, {@code GIVE_BACK}: the executor stopped, the binary
     * did not fail), nor what a user did to the run through the API (delete, pause, redrive), which the user knows.
     */
    static final Set<Transition> PUBLISHED = EnumSet.of(
            Transition.SUCCEED,
            Transition.FAIL,
            Transition.DIE,
            Transition.DEAD_LETTER,
            Transition.WITHDRAW,
            Transition.CANCEL_UNSTARTED,
            Transition.SKIP_OVERLAPPING,
            Transition.SKIP_MISSED);

    public RunNotice {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /**
     * The notice of {@code change}, which {@code by} has just won, when it is one that is published. {@code job}: the
     * run's job as {@code by} read it (null: not read); the run's tenant comes from it, or from the run the change
     * was made on.
     */
    public static Optional<RunNotice> of(Change change, Job job, String by) {
        if (!PUBLISHED.contains(change.transition())) {
            return Optional.empty();
        }
        Run run = change.run();
        String tenant = job != null ? job.owner() : run != null ? run.owner() : null;
        Integer attempt = change.attempt() != null ? change.attempt() : run != null ? run.attempt() : null;
        RunState state = change.transition().to().orElseThrow();
        return Optional.of(new RunNotice(
                change.now(),
                tenant,
                change.jobId(),
                job == null ? null : job.name(),
                job == null ? Map.of() : job.labels(),
                change.runId(),
                run == null ? null : run.scheduledAt(),
                attempt,
                state,
                change.exitCode(),
                change.error(),
                by,
                job != null && job.webhook() != null && job.webhook().wants(state.name()) ? job.webhook() : null));
    }

    /** Whether the run is over (a FAILED attempt will be retried: the run is not). */
    public boolean last() {
        return state != RunState.FAILED;
    }

    @Override
    public String detailType() {
        return DETAIL_TYPE;
    }

    /** Unique per outcome: a consumer that sees it twice (delivery is at least once) may drop the second. */
    @Override
    public String id() {
        return jobId + "/" + runId + "/" + (attempt == null ? 0 : attempt) + "/" + state;
    }

    /** The event's detail: one flat JSON object, absent fields left out. */
    @Override
    public String detailJson() {
        ObjectNode o = Details.start(this, tenant, jobName, labels);
        o.put("runId", runId);
        putIfPresent(o, "scheduledAt", scheduledAt == null ? null : scheduledAt.toString());
        if (attempt != null) {
            o.put("attempt", attempt);
        }
        o.put("state", state.name());
        o.put("final", last());
        if (exitCode != null) {
            o.put("exitCode", exitCode);
        }
        putIfPresent(o, "error", error);
        putIfPresent(o, "by", by);
        return o.toString();
    }
}
