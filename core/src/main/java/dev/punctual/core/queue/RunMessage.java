package dev.punctual.core.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * The queue's message: which run, and when it is due. Versioned so a newer executor can read an older sweeper's
 * messages during a rolling deploy. Built on the tree model (no reflection), which native images need.
 */
public record RunMessage(String jobId, String runId, Instant scheduledAt) {
    public static final int VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    public String encode() {
        ObjectNode n = JSON.createObjectNode();
        n.put("v", VERSION);
        n.put("jobId", jobId);
        n.put("runId", runId);
        n.put("scheduledAt", scheduledAt.toString());
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
            return new RunMessage(jobId, runId, Instant.parse(at));
        } catch (java.io.IOException | java.time.DateTimeException e) {
            throw new IllegalArgumentException("not a run message: " + e.getMessage(), e);
        }
    }
}
