package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code punctual completion}: a bash completion script. picocli's completes the commands and options; the part
 * added here completes a JOB (the first argument of {@code job get|delete|…}, {@code run list|get}, {@code logs}
 * and {@code dlq retry}) with the names of your jobs, asked of the API as you press Tab ({@code punctual __jobs}).
 */
@Command(
        name = "completion",
        mixinStandardHelpOptions = true,
        description = {
            "Prints a bash completion script: commands, options, and your jobs' names where a JOB goes.",
            "Load it with: source <(bin/punctual completion)"
        })
final class CompletionCommand extends CliCommand {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    CompletionCommand(Cli cli) {
        super(cli);
    }

    /**
     * Whether the word being completed is a JOB: the words so far, less options and their values, name a command
     * whose first argument is a job, and that argument is the current word. Then the names of the jobs come from
     * the same program the user typed (COMP_WORDS[0]), so bin/punctual works as well as one on the PATH.
     */
    private static final String JOBS = """

            # Job names where a JOB goes (added to picocli's script by `punctual completion`).
            function _punctual_job_word() {
              local words=() i w
              for ((i = 1; i < COMP_CWORD; i++)); do
                w=${COMP_WORDS[i]}
                case "$w" in
                  %s) ((i++)) ;;
                  -*) ;;
                  *) words+=("$w") ;;
                esac
              done
              case "${words[*]}" in
                "job get"|"job delete"|"job pause"|"job resume"|"job trigger"|"job backfill"|"job next") return 0 ;;
                "run list"|"run get"|"dlq retry"|"logs") return 0 ;;
              esac
              return 1
            }

            function _punctual_with_jobs() {
              _complete_punctual "$@"
              local cur=${COMP_WORDS[COMP_CWORD]}
              if [[ "$cur" != -* ]] && _punctual_job_word; then
                local IFS=$'\\n'
                COMPREPLY+=( $(compgen -W "$("${COMP_WORDS[0]}" __jobs "$cur" 2>/dev/null)" -- "$cur") )
              fi
            }

            complete -F _punctual_with_jobs -o default punctual bin/punctual ./bin/punctual
            """;

    @Override
    public void run() {
        cli.out.print(AutoComplete.bash("punctual", spec.root().commandLine()));
        cli.out.print(JOBS.formatted(String.join("|", valued(spec.root().commandLine()))));
    }

    /** Every option of every command that takes a value: the words a JOB is never the one after. */
    private static Set<String> valued(CommandLine command) {
        Set<String> names = new TreeSet<>();
        for (CommandLine.Model.OptionSpec o : command.getCommandSpec().options()) {
            if (o.arity().max() > 0) {
                names.addAll(List.of(o.names()));
            }
        }
        command.getSubcommands().values().forEach(sub -> names.addAll(valued(sub)));
        return names;
    }

    /** {@code punctual __jobs [PREFIX]}: your live jobs' names, one a line; what the completion asks. */
    @Command(name = "__jobs", hidden = true)
    static final class JobNames extends CliCommand {
        @Parameters(arity = "0..1", paramLabel = "PREFIX")
        String prefix;

        JobNames(Cli cli) {
            super(cli);
        }

        @Override
        public void run() {
            for (JsonNode j : ApiClient.all(
                    cli.api(), ApiClient.query("/v1/jobs", ApiClient.params("namePrefix", prefix, "limit", 100)))) {
                if (!"DELETED".equals(j.path("state").asText())) {
                    cli.out.println(j.path("name").asText());
                }
            }
        }
    }
}
