package dev.punctual.cli;

import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The top of {@code punctual}: the options every subcommand takes, and the subcommands. */
@Command(
        name = "punctual",
        mixinStandardHelpOptions = true,
        versionProvider = PunctualCommand.Version.class,
        description = "Punctual from the command line: binaries, jobs, runs and their logs, dead letters.",
        footerHeading = "%nConfiguration:%n",
        footer = {
            "The API's URL and token: --api-url/--token, else PUNCTUAL_API_URL/PUNCTUAL_TOKEN, else the profile"
                    + " file's <profile>.api-url/<profile>.token (--config, PUNCTUAL_CONFIG or"
                    + " ~/.config/punctual/config.properties; --profile or PUNCTUAL_PROFILE, default 'default'),"
                    + " else http://127.0.0.1:8080 (bin/run-local) without a token.",
            "%nExit codes: 0 done; 1 refused as invalid; 2 wrong usage; 3 not found; 4 conflict (state or version);"
                    + " 5 not authorized; 6 unreachable, failing or throttled (try again)."
        },
        subcommands = {
            BinaryCommand.class,
            JobCommand.class,
            RunCommand.class,
            LogsCommand.class,
            DeadLettersCommand.class,
            ScheduleCommand.class,
            CommandLine.HelpCommand.class,
            CompletionCommand.class,
            CompletionCommand.JobNames.class
        })
final class PunctualCommand extends CliCommand {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    PunctualCommand(Cli cli) {
        super(cli);
    }

    @Option(names = "--api-url", scope = ScopeType.INHERIT, paramLabel = "URL", description = "The API's base URL.")
    void apiUrl(String v) {
        cli.apiUrl = v;
    }

    @Option(names = "--token", scope = ScopeType.INHERIT, paramLabel = "TOKEN", description = "Bearer token.")
    void token(String v) {
        cli.token = v;
    }

    @Option(names = "--profile", scope = ScopeType.INHERIT, paramLabel = "NAME", description = "Profile to use.")
    void profile(String v) {
        cli.profile = v;
    }

    @Option(names = "--config", scope = ScopeType.INHERIT, paramLabel = "FILE", description = "The profile file.")
    void config(Path v) {
        cli.config = v;
    }

    @Option(
            names = {"-o", "--output"},
            scope = ScopeType.INHERIT,
            paramLabel = "FORMAT",
            description =
                    "table (default), json (the API's own JSON, for scripts) or yaml (the same as YAML: what job apply takes back).")
    void output(Cli.Output v) {
        cli.output = v;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command (see --help)");
    }

    /** The version of the jar this runs from. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = PunctualCommand.class.getPackage().getImplementationVersion();
            return new String[] {"punctual " + (v == null ? "(development build)" : v)};
        }
    }
}
