package dev.punctual.bench;

import dev.punctual.bench.calls.CallsCommand;
import dev.punctual.bench.compare.CompareCommand;
import dev.punctual.bench.dispatch.DispatchCommand;
import dev.punctual.bench.launch.LaunchCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Punctual's benchmarks, one subcommand each. Each prints a Markdown report on stdout, progress on stderr. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Punctual's benchmarks: each prints a Markdown report (machine, settings, results) on stdout.",
        subcommands = {
            LaunchCommand.class,
            CompareCommand.class,
            DispatchCommand.class,
            CallsCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Bench implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(
                spec.commandLine(),
                "Missing a benchmark: one of " + spec.subcommands().keySet());
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Bench()).execute(args));
    }
}
