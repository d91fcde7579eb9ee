package dev.punctual.bench;

import dev.punctual.bench.launch.LaunchCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Punctual's benchmarks, one subcommand each. Each prints a Markdown report on stdout, progress on stderr. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Punctual's benchmarks: each prints a Markdown report (machine, settings, results) on stdout.",
        subcommands = {LaunchCommand.class, CommandLine.HelpCommand.class})
public final class Bench implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Bench()).execute(args));
    }
}
