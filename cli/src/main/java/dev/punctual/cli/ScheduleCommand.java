package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code punctual schedule preview}: the fire times of a schedule before a job has it. */
@Command(
        name = "schedule",
        mixinStandardHelpOptions = true,
        description = "Try a schedule out.",
        subcommands = {ScheduleCommand.Preview.class})
final class ScheduleCommand {
    static void print(Cli cli, JsonNode preview) {
        cli.print(
                preview,
                out -> new Table()
                        .field("AT (UTC)", "at")
                        .field("LOCAL", "local")
                        .field("DST", "dst")
                        .print(out, preview.path("occurrences")));
    }

    @Command(
            name = "preview",
            mixinStandardHelpOptions = true,
            description = "The next fire times of a schedule, daylight-saving edges marked.")
    static final class Preview extends CliCommand {
        @ArgGroup(multiplicity = "1")
        Kind kind;

        static final class Kind {
            @Option(names = "--cron", paramLabel = "EXPRESSION", description = "A cron expression (5 fields).")
            String cron;

            @Option(names = "--every", paramLabel = "DURATION", description = "An interval, e.g. PT10M.")
            String every;

            @Option(
                    names = {"-f", "--file"},
                    paramLabel = "FILE",
                    description = "A job file: its schedule.")
            Path file;
        }

        @Option(names = "--timezone", paramLabel = "ZONE", description = "With --cron (default UTC).")
        String timezone;

        @Option(
                names = {"-n", "--count"},
                defaultValue = "10",
                description = "How many (1-100; default ${DEFAULT-VALUE}).")
        int count;

        @Option(names = "--from", paramLabel = "INSTANT", description = "From this instant (default now).")
        String from;

        Preview(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            Object schedule;
            if (kind.file != null) {
                JsonNode job = ApplyCommand.read(kind.file);
                if (!job.hasNonNull("schedule")) {
                    throw new Cli.UsageException(kind.file + " has no schedule");
                }
                schedule = job.get("schedule");
            } else if (kind.cron != null) {
                schedule = ApiClient.body("type", "cron", "expression", kind.cron, "timezone", timezone);
            } else {
                schedule = Map.of("type", "interval", "every", kind.every);
            }
            print(
                    cli,
                    cli.api()
                            .post(
                                    "/v1/schedules/preview",
                                    ApiClient.body("schedule", schedule, "count", count, "from", from)));
        }
    }
}
