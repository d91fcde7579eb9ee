package dev.punctual.core.exec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.core.run.Change;
import java.time.Instant;

/**
 * One transition of a run made by an executor, as its log line says it: the run, the attempt, the state it is in
 * now (STARTED when its binary was let start), the executor, and, for a start, how late it was and in which lane it
 * came. The executor logs one
 * per transition ({@link #line}): readable {@code key=value} text, or a JSON object per line (for CloudWatch Logs
 * Insights) when {@code punctual.json-run-events} is on.
 */
public record RunEvent(
        Instant at,
        String jobId,
        String runId,
        Integer attempt,
        String state,
        String executorId,
        Long latenessMs,
        Integer exitCode,
        String error,
        String lane) {
    /** How a run whose binary was let start shows: it is RUNNING already (since its claim). */
    public static final String STARTED = "STARTED";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The event of {@code change}, won by {@code executorId}. */
    static RunEvent of(Change change, String executorId) {
        return new RunEvent(
                change.now(),
                change.jobId(),
                change.runId(),
                change.attempt(),
                change.transition()
                        .to()
                        .map(Enum::name)
                        .orElse(change.transition().name()),
                executorId,
                null,
                change.exitCode(),
                change.error(),
                null);
    }

    /** The line the executor logs: JSON when {@code json}, else {@code key=value} pairs (values quoted when needed). */
    public String line(boolean json) {
        if (json) {
            ObjectNode o = JSON.createObjectNode();
            o.put("event", "run");
            o.put("at", at.toString());
            o.put("jobId", jobId);
            o.put("runId", runId);
            if (attempt != null) {
                o.put("attempt", attempt);
            }
            o.put("state", state);
            o.put("executorId", executorId);
            if (latenessMs != null) {
                o.put("latenessMs", latenessMs);
            }
            if (lane != null) {
                o.put("lane", lane);
            }
            if (exitCode != null) {
                o.put("exitCode", exitCode);
            }
            if (error != null) {
                o.put("error", error);
            }
            try {
                return JSON.writeValueAsString(o);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        StringBuilder b = new StringBuilder("run ").append(state);
        pair(b, "job", jobId);
        pair(b, "run", runId);
        pair(b, "attempt", attempt);
        pair(b, "executor", executorId);
        pair(b, "latenessMs", latenessMs);
        pair(b, "lane", lane);
        pair(b, "exitCode", exitCode);
        pair(b, "error", error);
        return b.toString();
    }

    private static void pair(StringBuilder b, String key, Object value) {
        if (value == null) {
            return;
        }
        String v = value.toString();
        b.append(' ').append(key).append('=');
        if (v.isEmpty() || v.chars().anyMatch(c -> c <= ' ' || c == '"')) {
            b.append('"')
                    .append(v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n"))
                    .append('"');
        } else {
            b.append(v);
        }
    }
}
