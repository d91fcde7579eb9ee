package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code punctual job apply -f FILE [--dry-run]}: a job's definition from a file, created or replaced by its name. */
@Command(
        name = "apply",
        mixinStandardHelpOptions = true,
        description = {
            "Creates the job the file describes, or replaces the definition of the live job of the same name"
                    + " (PUT with If-Match: the version read, so a change made meanwhile is not overwritten).",
            "The file is the body of POST /v1/jobs, in YAML or JSON; instead of binaryId it may name the binary:"
                    + " binary: NAME (the newest of that name) or NAME@sha256:HEX.",
            "With --dry-run nothing changes: the API checks the file as it would and answers with the job as it"
                    + " would be, shown as a diff against the job as it is."
        })
final class ApplyCommand extends CliCommand {
    @Option(
            names = {"-f", "--file"},
            required = true,
            paramLabel = "FILE",
            description = "job.yaml or job.json")
    Path file;

    @Option(
            names = "--dry-run",
            description = "Change nothing: show what would change as a unified diff of the definitions (with -o"
                    + " json|yaml, the job as it would be).")
    boolean dryRun;

    ApplyCommand(Cli cli) {
        super(cli);
    }

    @Override
    public void run() {
        JsonNode body = read(file);
        if (!body.isObject() || !body.hasNonNull("name")) {
            throw new Cli.UsageException(file + ": a job needs a name (apply finds the job to change by it)");
        }
        String name = body.get("name").asText();
        List<JsonNode> named = Jobs.byName(cli, name);
        if (named.size() > 1) {
            throw new Cli.UsageException(named.size() + " jobs are named " + name + ": apply needs one");
        }
        ObjectNode definition = definition((ObjectNode) body, named.isEmpty());
        if (definition.has("binary")) {
            definition.put(
                    "binaryId", binaryNamed(cli, definition.remove("binary").asText()));
        }
        String dry = dryRun ? "?dryRun=true" : "";
        ApiClient.Answer answer;
        if (named.isEmpty()) {
            answer = cli.api().post("/v1/jobs" + dry, definition, Map.of());
            if (dryRun) {
                cli.err.println("would create " + name);
                showChange(null, answer.json());
                return;
            }
            cli.err.println("created " + answer.json().path("id").asText());
        } else {
            JsonNode current = named.getFirst();
            String id = current.get("id").asText();
            long version = current.path("version").asLong();
            answer = cli.api()
                    .put(
                            "/v1/jobs/" + ApiClient.segment(id) + dry,
                            definition,
                            Map.of("If-Match", "\"" + version + "\""));
            if (dryRun) {
                showChange(current, answer.json());
                return;
            }
            long now = answer.json().path("version").asLong();
            // The API keeps the version of a job given the definition it has already.
            cli.err.println(
                    now == version
                            ? "unchanged " + id + " (version " + version + ")"
                            : "updated " + id + " to version " + now);
        }
        Jobs.print(cli, answer.json());
    }

    /**
     * A dry run's answer: the job as it would be with -o json|yaml, else the definitions' difference (what get
     * shows, less what the API sets) as a unified diff, or that nothing would change.
     */
    private void showChange(JsonNode current, JsonNode wouldBe) {
        if (cli.output != Cli.Output.table) {
            cli.print(wouldBe, out -> {});
            return;
        }
        List<String> before = current == null ? List.of() : lines(current);
        List<String> after = lines(wouldBe);
        if (before.equals(after)) {
            cli.err.println("unchanged " + current.path("id").asText() + " (version "
                    + current.path("version").asText() + ")");
            return;
        }
        String label = current == null ? "(none)" : current.path("id").asText();
        UnifiedDiffUtils.generateUnifiedDiff(label, file.toString(), before, DiffUtils.diff(before, after), 3)
                .forEach(cli.out::println);
    }

    /** A job's definition as YAML lines: what {@code get -o yaml} shows of it, less what the API sets. */
    private static List<String> lines(JsonNode job) {
        ObjectNode d = job.deepCopy();
        READ_ONLY.forEach(d::remove);
        return Yaml.write(d).lines().toList();
    }

    /** What {@code job get} shows of a job that is not its definition: the API sets it, a body must not. */
    static final List<String> READ_ONLY =
            List.of("id", "owner", "state", "version", "createdAt", "updatedAt", "nextRunAt", "pausedAt", "pauseNote");

    /**
     * The body to send for {@code file}'s job: what {@code job get -o yaml|json} printed is taken back as it is, its
     * read-only fields left out, and its secrets' names (get never shows their values) too: a replaced job keeps
     * its secrets when the body names none. A new job's secrets need their values.
     */
    static ObjectNode definition(ObjectNode body, boolean creating) {
        ObjectNode d = body.deepCopy();
        READ_ONLY.forEach(d::remove);
        if (d.path("secrets").isArray()) {
            if (creating && !d.get("secrets").isEmpty()) {
                throw new Cli.UsageException("secrets: the file names them only (as job get shows them); a new"
                        + " job needs their values, as NAME: value");
            }
            d.remove("secrets");
        }
        return d;
    }

    /**
     * The id of the binary {@code ref} names: {@code name}, the newest binary of that name, or
     * {@code name@sha256:<hex>}, the newest of that name and content.
     */
    static String binaryNamed(Cli cli, String ref) {
        int at = ref.indexOf("@sha256:");
        String name = at < 0 ? ref : ref.substring(0, at);
        String sha256 = at < 0 ? null : ref.substring(at + "@sha256:".length());
        // Newest first: the first of that name is the newest.
        for (JsonNode b : ApiClient.all(
                cli.api(), ApiClient.query("/v1/binaries", ApiClient.params("sha256", sha256, "limit", 100)))) {
            if (name.equals(b.path("name").asText()) && b.path("uploaded").asBoolean(true)) {
                return b.path("id").asText();
            }
        }
        throw new Cli.UsageException("binary: none of yours is named " + name
                + (sha256 == null ? "" : " with sha256 " + sha256) + " (bin/punctual binary push it first)");
    }

    static JsonNode read(Path file) {
        try {
            String text = Files.readString(file);
            return file.toString().endsWith(".json") ? ApiClient.JSON.readTree(text) : Yaml.read(text);
        } catch (IOException e) {
            throw new Cli.UsageException("cannot read " + file + ": " + e.getMessage());
        }
    }
}
