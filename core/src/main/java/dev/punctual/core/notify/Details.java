package dev.punctual.core.notify;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/** What every notice's detail starts with (schema version 1), and absent fields left out. */
final class Details {
    static final String SCHEMA_VERSION = "1";

    private static final ObjectMapper JSON = new ObjectMapper();

    private Details() {}

    /** {@code version}, {@code id}, {@code at}, {@code tenant}, {@code jobId}, {@code jobName}, {@code labels}. */
    static ObjectNode start(Notice n, String tenant, String jobName, Map<String, String> labels) {
        ObjectNode o = JSON.createObjectNode();
        o.put("version", SCHEMA_VERSION);
        o.put("id", n.id());
        o.put("at", n.at().toString());
        putIfPresent(o, "tenant", tenant);
        o.put("jobId", n.jobId());
        putIfPresent(o, "jobName", jobName);
        ObjectNode l = o.putObject("labels");
        labels.forEach(l::put);
        return o;
    }

    static void putIfPresent(ObjectNode o, String field, String value) {
        if (value != null) {
            o.put(field, value);
        }
    }
}
