package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/** Finding a job by its id or its name, and showing jobs. */
final class Jobs {
    private Jobs() {}

    /** The id of the job {@code ref} names: an id as it is, else the one live job of that exact name. */
    static String id(Cli cli, String ref) {
        if (ref.startsWith("job_")) {
            return ref;
        }
        List<JsonNode> named = byName(cli, ref);
        if (named.isEmpty()) {
            throw new ApiException(404, null, "no job is named " + ref);
        }
        if (named.size() > 1) {
            throw new Cli.UsageException(named.size() + " jobs are named " + ref + ": give an id ("
                    + String.join(
                            ", ", named.stream().map(j -> j.get("id").asText()).toList()) + ")");
        }
        return named.getFirst().get("id").asText();
    }

    /** The jobs not deleted whose name is exactly {@code name}. */
    static List<JsonNode> byName(Cli cli, String name) {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode j : ApiClient.all(
                cli.api(), ApiClient.query("/v1/jobs", ApiClient.params("namePrefix", name, "limit", 100)))) {
            if (name.equals(j.path("name").asText())
                    && !"DELETED".equals(j.path("state").asText())) {
                found.add(j);
            }
        }
        return found;
    }

    /** The schedule in a few words: {@code cron 0 6 * * * Europe/Paris}, {@code every PT10S}, {@code once …}. */
    static String schedule(JsonNode s) {
        if (s == null || s.isNull()) {
            return null;
        }
        String type = s.path("type").asText();
        return switch (type) {
            case "cron" ->
                "cron " + s.path("expression").asText() + " "
                        + s.path("timezone").asText("UTC");
            case "interval" ->
                "every " + s.path("every").asText()
                        + (s.hasNonNull("end") ? " until " + s.get("end").asText() : "");
            case "once" -> "once " + s.path("at").asText();
            case "dates" -> "dates (" + s.path("dates").size() + ")";
            default -> type;
        };
    }

    static final String[] FIELDS = {
        "id",
        "name",
        "state",
        "version",
        "binaryId",
        "args",
        "env",
        "schedule",
        "nextRunAt",
        "labels",
        "timeoutSeconds",
        "maxAttempts",
        "catchUp",
        "overlap",
        "maxRunAge",
        "maxConcurrency",
        "priority",
        "jitter",
        "secrets",
        "limits",
        "webhook",
        "expect",
        "pausedAt",
        "pauseNote",
        "createdAt",
        "updatedAt"
    };

    static void print(Cli cli, JsonNode job) {
        ObjectNode shown = job.deepCopy();
        if (job.hasNonNull("schedule")) {
            shown.put("schedule", schedule(job.get("schedule")));
        }
        cli.print(job, out -> Table.describe(out, shown, FIELDS));
    }

    static Table table() {
        return new Table()
                .field("ID", "id")
                .field("NAME", "name")
                .field("STATE", "state")
                .column("SCHEDULE", j -> schedule(j.get("schedule")))
                .field("NEXT RUN", "nextRunAt")
                .column("LABELS", j -> labels(j.get("labels")));
    }

    private static String labels(JsonNode l) {
        if (l == null || l.isEmpty()) {
            return null;
        }
        List<String> kv = new ArrayList<>();
        l.properties().forEach(e -> kv.add(e.getKey() + "=" + e.getValue().asText()));
        return String.join(",", kv);
    }
}
