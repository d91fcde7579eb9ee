package dev.punctual.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code punctual dlq list|retry}: runs that went DEAD, and their re-drive. */
@Command(
        name = "dlq",
        mixinStandardHelpOptions = true,
        description = "Dead letters: runs that used up their attempts or could not be delivered.",
        subcommands = {DeadLettersCommand.ListDead.class, DeadLettersCommand.Retry.class})
final class DeadLettersCommand {
    @Command(name = "list", mixinStandardHelpOptions = true, description = "Your DEAD runs, latest first.")
    static final class ListDead extends CliCommand {
        @Mixin
        Watch watch;

        ListDead(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            watch.print(
                    cli,
                    () -> ApiClient.all(
                            cli.api(), ApiClient.query("/v1/runs", ApiClient.params("state", "DEAD", "limit", 100))),
                    r -> r.path("jobId").asText() + "/" + r.path("runId").asText(),
                    new Table()
                            .column("JOB", RunCommand::job)
                            .field("RUN", "runId")
                            .column(
                                    "ATTEMPT",
                                    r -> r.path("attempt").asText() + "/"
                                            + r.path("maxAttempts").asText())
                            .field("EXIT", "exitCode")
                            .field("FINISHED", "finishedAt")
                            .field("ERROR", "error"));
        }
    }

    @Command(
            name = "retry",
            mixinStandardHelpOptions = true,
            description = "Re-drives a DEAD run: queued again with the job's maxAttempts more attempts.")
    static final class Retry extends RunCommand.OnRun {
        Retry(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            RunCommand.print(cli, cli.api().post(path() + "/retry", null));
        }
    }
}
