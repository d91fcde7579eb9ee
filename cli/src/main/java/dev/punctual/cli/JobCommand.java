package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code punctual job …}: a job is named by its id or by its name. */
@Command(
        name = "job",
        mixinStandardHelpOptions = true,
        description = "Create, change, inspect and operate jobs. JOB is a job's id or its name.",
        subcommands = {
            JobCommand.Apply.class,
            JobCommand.ListJobs.class,
            JobCommand.Get.class,
            JobCommand.Delete.class,
            JobCommand.Pause.class,
            JobCommand.Resume.class,
            JobCommand.Trigger.class,
            JobCommand.Backfill.class,
            JobCommand.Next.class
        })
final class JobCommand {
    static String path(Cli cli, String ref) {
        return "/v1/jobs/" + ApiClient.segment(Jobs.id(cli, ref));
    }

    @Command(
            name = "apply",
            mixinStandardHelpOptions = true,
            description = {
                "Creates the job the file describes, or replaces the definition of the live job of the same name"
                        + " (PUT with If-Match: the version read, so a change made meanwhile is not overwritten).",
                "The file is the body of POST /v1/jobs, in YAML or JSON; instead of binaryId it may name the binary:"
                        + " binary: NAME (the newest of that name) or NAME@sha256:HEX."
            })
    static final class Apply implements Runnable {
        private final Cli cli;

        @Option(
                names = {"-f", "--file"},
                required = true,
                paramLabel = "FILE",
                description = "job.yaml or job.json")
        Path file;

        Apply(Cli cli) {
            this.cli = cli;
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
            ApiClient.Answer answer;
            if (named.isEmpty()) {
                answer = cli.api().post("/v1/jobs", definition, Map.of());
                cli.err.println("created " + answer.json().path("id").asText());
            } else {
                String id = named.getFirst().get("id").asText();
                long version = named.getFirst().path("version").asLong();
                answer = cli.api()
                        .put(
                                "/v1/jobs/" + ApiClient.segment(id),
                                definition,
                                Map.of("If-Match", "\"" + version + "\""));
                long now = answer.json().path("version").asLong();
                // The API keeps the version of a job given the definition it has already.
                cli.err.println(
                        now == version
                                ? "unchanged " + id + " (version " + version + ")"
                                : "updated " + id + " to version " + now);
            }
            Jobs.print(cli, answer.json());
        }

        /** What {@code job get} shows of a job that is not its definition: the API sets it, a body must not. */
        static final List<String> READ_ONLY = List.of(
                "id", "owner", "state", "version", "createdAt", "updatedAt", "nextRunAt", "pausedAt", "pauseNote");

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

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Your jobs, oldest first.")
    static final class ListJobs implements Runnable {
        private final Cli cli;

        @Option(names = "--state", split = ",", description = "ACTIVE, PAUSED, COMPLETED, DELETED (any of them).")
        List<String> states;

        @Option(names = "--label", split = ",", paramLabel = "KEY[=VALUE]", description = "Labels a job must have.")
        List<String> labels;

        @Option(names = "--name-prefix", paramLabel = "PREFIX")
        String namePrefix;

        @Option(names = "--all", description = "Deleted jobs too (left out unless --state names DELETED).")
        boolean all;

        ListJobs(Cli cli) {
            this.cli = cli;
        }

        @Override
        public void run() {
            String path = ApiClient.query(
                    "/v1/jobs",
                    ApiClient.params(
                            "state", join(states), "label", join(labels), "namePrefix", namePrefix, "limit", 100));
            List<JsonNode> jobs = ApiClient.all(cli.api(), path);
            if (!all && (states == null || states.isEmpty())) {
                // A deleted job stays visible (its runs' history), but a name is taken again by a new one: two rows
                // of one name would be one too many in a list of what runs.
                jobs = jobs.stream()
                        .filter(j -> !"DELETED".equals(j.path("state").asText()))
                        .toList();
            }
            Jobs.printList(cli, jobs);
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "One job.")
    static final class Get implements Runnable {
        private final Cli cli;

        @Parameters(paramLabel = "JOB")
        String job;

        Get(Cli cli) {
            this.cli = cli;
        }

        @Override
        public void run() {
            Jobs.print(cli, cli.api().get(path(cli, job)));
        }
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Deletes the job: no further run starts, including runs already queued.")
    static final class Delete implements Runnable {
        private final Cli cli;

        @Parameters(paramLabel = "JOB")
        String job;

        Delete(Cli cli) {
            this.cli = cli;
        }

        @Override
        public void run() {
            String id = Jobs.id(cli, job);
            cli.api().delete("/v1/jobs/" + ApiClient.segment(id));
            cli.print(
                    ApiClient.JSON.createObjectNode().put("id", id).put("deleted", true),
                    out -> out.println("deleted " + id));
        }
    }

    @Command(
            name = "pause",
            mixinStandardHelpOptions = true,
            description = "Pauses the job: its runs that have not started wait until it is resumed.")
    static final class Pause implements Runnable {
        private final Cli cli;

        @Parameters(paramLabel = "JOB")
        String job;

        @Option(names = "--note", description = "Why (shown on the job until it is resumed).")
        String note;

        Pause(Cli cli) {
            this.cli = cli;
        }

        @Override
        public void run() {
            Jobs.print(cli, cli.api().post(path(cli, job) + "/pause", ApiClient.body("note", note)));
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resumes a paused job.")
    static final class Resume implements Runnable {
        private final Cli cli;

        @Parameters(paramLabel = "JOB")
        String job;

        @Option(
                names = "--catch-up",
                paramLabel = "MODE",
                description = "What to run of the occurrences missed while paused: skip, latest or all"
                        + " (default: the job's own catchUp).")
        String catchUp;

        Resume(Cli cli) {
            this.cli = cli;
        }

        @Override
        public void run() {
            Jobs.print(cli, cli.api().post(path(cli, job) + "/resume", ApiClient.body("catchUp", catchUp)));
        }
    }

    @Command(
            name = "trigger",
            mixinStandardHelpOptions = true,
            description = "Runs the job once now, outside its schedule; prints the run.")
    static final class Trigger implements Runnable {
        private final Cli cli;

        @Parameters(paramLabel = "JOB")
        String job;

        @Option(names = "--arg", paramLabel = "ARG", description = "The run's arguments instead of the job's.")
        List<String> args;

        @Option(names = "--env", paramLabel = "NAME=VALUE", description = "Set over the job's env for this run.")
        Map<String, String> env;

        @Option(
                names = "--priority",
                paramLabel = "LANE",
                description = "high, normal or low: this run's lane instead of the job's.")
        String priority;

        Trigger(Cli cli) {
            this.cli = cli;
        }

        @Override
        public void run() {
            RunCommand.print(
                    cli,
                    cli.api()
                            .post(
                                    path(cli, job) + "/trigger",
                                    ApiClient.body("args", args, "env", env, "priority", priority)));
        }
    }

    @Command(
            name = "backfill",
            mixinStandardHelpOptions = true,
            description = "Runs each occurrence in [FROM, TO] that has no run yet (TO not in the future).")
    static final class Backfill implements Runnable {
        private final Cli cli;

        @Parameters(paramLabel = "JOB")
        String job;

        @Option(names = "--from", required = true, paramLabel = "INSTANT")
        String from;

        @Option(names = "--to", required = true, paramLabel = "INSTANT")
        String to;

        @Option(
                names = "--priority",
                paramLabel = "LANE",
                description = "high, normal or low: these runs' lane instead of the job's.")
        String priority;

        Backfill(Cli cli) {
            this.cli = cli;
        }

        @Override
        public void run() {
            JsonNode b = cli.api()
                    .post(path(cli, job) + "/backfill", ApiClient.body("from", from, "to", to, "priority", priority));
            cli.print(
                    b,
                    out -> Table.describe(out, b, "jobId", "from", "to", "occurrences", "alreadyExisting", "created"));
        }
    }

    @Command(
            name = "next",
            mixinStandardHelpOptions = true,
            description = "The job's next fire times, daylight-saving edges marked.")
    static final class Next implements Runnable {
        private final Cli cli;

        @Parameters(paramLabel = "JOB")
        String job;

        @Option(
                names = {"-n", "--count"},
                defaultValue = "10",
                description = "How many (1-100; default ${DEFAULT-VALUE}).")
        int count;

        Next(Cli cli) {
            this.cli = cli;
        }

        @Override
        public void run() {
            ScheduleCommand.print(
                    cli, cli.api().get(ApiClient.query(path(cli, job) + "/next", ApiClient.params("count", count))));
        }
    }

    static String join(List<String> values) {
        return values == null || values.isEmpty() ? null : String.join(",", values);
    }
}
