package dev.punctual.core.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.firing.Priority;
import java.time.Duration;
import java.time.Instant;

/**
 * The queue's message: which run, when it is due, and the lane it is sent to ({@code priority}: which queue; also in
 * the body, for whoever reads one). Versioned so a newer executor can read an older sweeper's messages during a
 * rolling deploy. Built on the tree model (no reflection), which native images need.
 */
public record RunMessage(String jobId, String runId, Instant scheduledAt, Hint hint, Priority priority) {
    public static final int VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    public RunMessage {
        priority = priority == null ? Priority.NORMAL : priority;
    }

    /** A message without a {@link Hint}, in the normal lane: the executor reads the job before it claims. */
    public RunMessage(String jobId, String runId, Instant scheduledAt) {
        this(jobId, runId, scheduledAt, null, Priority.NORMAL);
    }

    /** In the normal lane. */
    public RunMessage(String jobId, String runId, Instant scheduledAt, Hint hint) {
        this(jobId, runId, scheduledAt, hint, Priority.NORMAL);
    }

    /**
     * What the sender knew of the job, so that the executor need not read it before the claim: its runs may overlap
     * (the claim is then the run's alone, and the job is read strongly right after it anyway), with this
     * {@code maxRunAge}. A hint only: a job replaced since by one whose runs must not overlap is found by that read,
     * and the attempt handed back.
     */
    public record Hint(Duration maxRunAge) {
        /** The hint of a job with {@code firing} (null: its runs must not overlap, there is nothing to skip). */
        public static Hint of(FiringPolicy firing) {
            return firing.overlap() == Overlap.ALLOW ? new Hint(firing.maxRunAge()) : null;
        }

        /** The firing policy the executor acts on before it has read the job. */
        public FiringPolicy firing() {
            return new FiringPolicy(null, null, Overlap.ALLOW, maxRunAge);
        }
    }

    public String encode() {
        ObjectNode n = JSON.createObjectNode();
        n.put("v", VERSION);
        n.put("jobId", jobId);
        n.put("runId", runId);
        n.put("scheduledAt", scheduledAt.toString());
        if (priority != Priority.NORMAL) {
            n.put("priority", priority.label());
        }
        if (hint != null) {
            n.putObject("hint")
                    .put("overlap", "allow")
                    .put("maxRunAge", hint.maxRunAge().toString());
        }
        return n.toString();
    }

    /**
     * The run message in a queue message's body.
     *
     * @throws IllegalArgumentException for a body that is not a run message (it is poison: dead-letter it)
     */
    public static RunMessage decode(String body) {
        try {
            JsonNode n = JSON.readTree(body);
            if (n == null || n.path("v").asInt() != VERSION) {
                throw new IllegalArgumentException("unsupported message version");
            }
            String jobId = n.path("jobId").textValue();
            String runId = n.path("runId").textValue();
            String at = n.path("scheduledAt").textValue();
            if (jobId == null || runId == null || at == null) {
                throw new IllegalArgumentException("missing jobId, runId or scheduledAt");
            }
            JsonNode h = n.path("hint");
            // A hint that is not one this version knows is ignored: the job is read instead.
            Hint hint = "allow".equals(h.path("overlap").textValue())
                            && h.path("maxRunAge").isTextual()
                    ? new Hint(Duration.parse(h.path("maxRunAge").textValue()))
                    : null;
            // Informative only (the lane is the queue it came from); absent or unknown: normal.
            Priority priority = Priority.parse(n.path("priority").textValue());
            return new RunMessage(jobId, runId, Instant.parse(at), hint, priority);
        } catch (java.io.IOException | java.time.DateTimeException e) {
            throw new IllegalArgumentException("not a run message: " + e.getMessage(), e);
        }
    }
}
