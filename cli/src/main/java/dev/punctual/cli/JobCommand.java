package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code punctual job …}: a job is named by its id or by its name. */
@Command(
        name = "job",
        mixinStandardHelpOptions = true,
        description = "Create, change, inspect and operate jobs. JOB is a job's id or its name.",
        subcommands = {
            ApplyCommand.class,
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

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Your jobs, oldest first.")
    static final class ListJobs extends CliCommand {
        @Option(names = "--state", split = ",", description = "ACTIVE, PAUSED, COMPLETED, DELETED (any of them).")
        List<String> states;

        @Option(names = "--label", split = ",", paramLabel = "KEY[=VALUE]", description = "Labels a job must have.")
        List<String> labels;

        @Option(names = "--name-prefix", paramLabel = "PREFIX")
        String namePrefix;

        @Option(names = "--all", description = "Deleted jobs too (left out unless --state names DELETED).")
        boolean all;

        @Mixin
        Watch watch;

        ListJobs(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            String path = ApiClient.query(
                    "/v1/jobs",
                    ApiClient.params(
                            "state", join(states), "label", join(labels), "namePrefix", namePrefix, "limit", 100));
            watch.print(
                    cli,
                    () -> {
                        List<JsonNode> jobs = ApiClient.all(cli.api(), path);
                        // A deleted job stays visible (its runs' history), but a name is taken again by a new one:
                        // two rows of one name would be one too many in a list of what runs.
                        return all || (states != null && !states.isEmpty())
                                ? jobs
                                : jobs.stream()
                                        .filter(j -> !"DELETED"
                                                .equals(j.path("state").asText()))
                                        .toList();
                    },
                    j -> j.path("id").asText(),
                    Jobs.table());
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "One job.")
    static final class Get extends OnJob {
        Get(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            Jobs.print(cli, cli.api().get(path()));
        }
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Deletes the job: no further run starts, including runs already queued.")
    static final class Delete extends OnJob {
        Delete(Cli cli) {
            super(cli);
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
    static final class Pause extends OnJob {
        @Option(names = "--note", description = "Why (shown on the job until it is resumed).")
        String note;

        Pause(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            Jobs.print(cli, cli.api().post(path() + "/pause", ApiClient.body("note", note)));
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resumes a paused job.")
    static final class Resume extends OnJob {
        @Option(
                names = "--catch-up",
                paramLabel = "MODE",
                description = "What to run of the occurrences missed while paused: skip, latest or all"
                        + " (default: the job's own catchUp).")
        String catchUp;

        Resume(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            Jobs.print(cli, cli.api().post(path() + "/resume", ApiClient.body("catchUp", catchUp)));
        }
    }

    @Command(
            name = "trigger",
            mixinStandardHelpOptions = true,
            description = "Runs the job once now, outside its schedule; prints the run.")
    static final class Trigger extends OnJob {
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
            super(cli);
        }

        @Override
        public void run() {
            RunCommand.print(
                    cli,
                    cli.api()
                            .post(path() + "/trigger", ApiClient.body("args", args, "env", env, "priority", priority)));
        }
    }

    @Command(
            name = "backfill",
            mixinStandardHelpOptions = true,
            description = "Runs each occurrence in [FROM, TO] that has no run yet (TO not in the future).")
    static final class Backfill extends OnJob {
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
            super(cli);
        }

        @Override
        public void run() {
            JsonNode b =
                    cli.api().post(path() + "/backfill", ApiClient.body("from", from, "to", to, "priority", priority));
            cli.print(
                    b,
                    out -> Table.describe(out, b, "jobId", "from", "to", "occurrences", "alreadyExisting", "created"));
        }
    }

    @Command(
            name = "next",
            mixinStandardHelpOptions = true,
            description = "The job's next fire times, daylight-saving edges marked.")
    static final class Next extends OnJob {
        @Option(
                names = {"-n", "--count"},
                defaultValue = "10",
                description = "How many (1-100; default ${DEFAULT-VALUE}).")
        int count;

        Next(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            ScheduleCommand.print(
                    cli, cli.api().get(ApiClient.query(path() + "/next", ApiClient.params("count", count))));
        }
    }

    /** A command on one job, JOB. */
    abstract static class OnJob extends CliCommand {
        @Parameters(paramLabel = "JOB")
        String job;

        OnJob(Cli cli) {
            super(cli);
        }

        /** The job's path in the API. */
        String path() {
            return JobCommand.path(cli, job);
        }
    }

    static String join(List<String> values) {
        return values == null || values.isEmpty() ? null : String.join(",", values);
    }
}
