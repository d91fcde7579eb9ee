package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code punctual run list|get}. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = "A job's runs: their state, attempts, exit code and timings.",
        subcommands = {RunCommand.ListRuns.class, RunCommand.Get.class})
final class RunCommand {
    static final String[] FIELDS = {
        "runId",
        "jobId",
        "state",
        "attempt",
        "maxAttempts",
        "exitCode",
        "scheduledAt",
        "startedAt",
        "finishedAt",
        "executorId",
        "error",
        "args",
        "env",
        "priority",
        "waiting"
    };

    static void print(Cli cli, JsonNode run) {
        cli.print(run, out -> Table.describe(out, run, FIELDS));
    }

    static void printList(Cli cli, List<JsonNode> runs) {
        cli.print(
                runs,
                out -> new Table()
                        .field("RUN", "runId")
                        .field("STATE", "state")
                        .column(
                                "ATTEMPT",
                                r -> r.path("attempt").asText() + "/"
                                        + r.path("maxAttempts").asText())
                        .field("EXIT", "exitCode")
                        .field("SCHEDULED", "scheduledAt")
                        .field("STARTED", "startedAt")
                        .field("FINISHED", "finishedAt")
                        .field("ERROR", "error")
                        .print(out, runs));
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "A job's runs due by now, newest first.")
    static final class ListRuns implements Runnable {
        private final Cli cli;

        @Parameters(paramLabel = "JOB")
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

        ListRuns(Cli cli) {
            this.cli = cli;
        }

        @Override
        public void run() {
            String base = ApiClient.query(
                    JobCommand.path(cli, job) + "/runs",
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
            // Pages may come short (the state filter is applied after a page is read): follow the cursor until
            // enough runs are in hand or there are no more.
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
            printList(cli, runs);
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "One run.")
    static final class Get implements Runnable {
        private final Cli cli;

        @Parameters(index = "0", paramLabel = "JOB")
        String job;

        @Parameters(index = "1", paramLabel = "RUN")
        String run;

        Get(Cli cli) {
            this.cli = cli;
        }

        @Override
        public void run() {
            print(cli, cli.api().get(JobCommand.path(cli, job) + "/runs/" + ApiClient.segment(run)));
        }
    }
}
