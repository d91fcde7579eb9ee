package dev.punctual.cli;

/** A command that works through the shared {@link Cli}, which {@link Main}'s factory hands to its constructor. */
abstract class CliCommand implements Runnable {
    final Cli cli;

    CliCommand(Cli cli) {
        this.cli = cli;
    }
}
