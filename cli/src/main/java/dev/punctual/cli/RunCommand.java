package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code punctual run list|get}. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = "Runs: their state, attempts, exit code and timings; one job's or all of yours.",
        subcommands = {RunCommand.ListRuns.class, RunCommand.Get.class})
final class RunCommand {
    static final String[] FIELDS = {
        "runId",
        "jobId",
        "jobName",
        "state",
        "origin",
        "attempt",
        "maxAttempts",
        "exitCode",
        "scheduledAt",
        "createdAt",
        "queuedAt",
        "startedAt",
        "finishedAt",
        "lateness",
        "executorId",
        "error",
        "args",
        "env",
        "priority",
        "waiting",
        "attempts"
    };

    static void print(Cli cli, JsonNode run) {
        cli.print(run, out -> Table.describe(out, run, FIELDS));
    }

    /** A run's job as a listing shows it: its name, or its id where the API gave none. */
    static String job(JsonNode r) {
        return r.hasNonNull("jobName")
                ? r.get("jobName").asText()
                : r.path("jobId").asText();
    }

    /** The runs' table; {@code withJob}: a column naming each run's job (runs of more than one job). */
    static Table table(boolean withJob) {
        Table t = new Table().field("RUN", "runId");
        if (withJob) {
            t.column("JOB", RunCommand::job);
        }
        return t.field("STATE", "state")
                .column("ORIGIN", r -> r.path("origin").asText("").toLowerCase(java.util.Locale.ROOT))
                .column(
                        "ATTEMPT",
                        r -> r.path("attempt").asText() + "/"
                                + r.path("maxAttempts").asText())
                .field("EXIT", "exitCode")
                .field("SCHEDULED", "scheduledAt")
                .field("STARTED", "startedAt")
                .field("FINISHED", "finishedAt")
                .field("ERROR", "error");
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "Runs due by now, newest first: JOB's, or without JOB those of all your jobs.")
    static final class ListRuns extends CliCommand {
        @Parameters(paramLabel = "JOB", arity = "0..1", description = "A job's id or name; none: every job's runs.")
        String job;

        @Option(names = "--state", split = ",", description = "Only these states (e.g. FAILED,DEAD).")
        List<String> states;

        @Option(names = "--from", paramLabel = "INSTANT", description = "Due at or after.")
        String from;

        @Option(names = "--to", paramLabel = "INSTANT", description = "Due at or before.")
        String to;

        @Option(names = "--future", description = "Also the runs not due yet.")
        boolean future;

        @Option(names = "--limit", defaultValue = "20", description = "At most this many (default ${DEFAULT-VALUE}).")
        int limit;

        @Mixin
        Watch watch;

        ListRuns(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            String base = ApiClient.query(
                    job == null ? "/v1/runs" : JobCommand.path(cli, job) + "/runs",
                    ApiClient.params(
                            "state",
                            JobCommand.join(states),
                            "from",
                            from,
                            "to",
                            to,
                            "future",
                            future ? "true" : null,
                            "limit",
                            Math.min(limit, 100)));
            watch.print(
                    cli,
                    () -> fetch(base),
                    r -> r.path("jobId").asText() + "/" + r.path("runId").asText(),
                    table(job == null));
        }

        /**
         * Up to {@code limit} runs. Pages may come short (the state filter is applied after a page is read): the
         * cursor is followed until enough runs are in hand or there are no more.
         */
        private List<JsonNode> fetch(String base) {
            List<JsonNode> runs = new ArrayList<>();
            String cursor = null;
            do {
                JsonNode page = cli.api().get(cursor == null ? base : base + "&cursor=" + ApiClient.segment(cursor));
                page.path("items").forEach(r -> {
                    if (runs.size() < limit) {
                        runs.add(r);
                    }
                });
                cursor = page.hasNonNull("nextCursor") ? page.get("nextCursor").asText() : null;
            } while (cursor != null && runs.size() < limit);
            return runs;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "One run.")
    static final class Get extends OnRun {
        Get(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            print(cli, cli.api().get(path()));
        }
    }

    /** A command on one run: JOB (its job's id or name) and RUN. */
    abstract static class OnRun extends CliCommand {
        @Parameters(index = "0", paramLabel = "JOB")
        String job;

        @Parameters(index = "1", paramLabel = "RUN")
        String run;

        OnRun(Cli cli) {
            super(cli);
        }

        /** The run's path in the API. */
        String path() {
            return JobCommand.path(cli, job) + "/runs/" + ApiClient.segment(run);
        }
    }
}
