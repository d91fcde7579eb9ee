package dev.punctual.cli;

import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;

/** {@code punctual}: the command line client of Punctual's HTTP API. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        Charset cs = Charset.defaultCharset();
        PrintWriter out = new PrintWriter(System.out, true, cs);
        PrintWriter err = new PrintWriter(System.err, true, cs);
        System.exit(run(out, err, System.getenv(), Path.of(System.getProperty("user.home")), args));
    }

    /**
     * Runs one command line: what it prints goes to {@code out} (the answer) and {@code err} (progress, errors);
     * {@code env} and {@code home} stand for the process's environment and home directory (the profile file).
     * Returns the exit code ({@link Exit}).
     */
    public static int run(PrintWriter out, PrintWriter err, Map<String, String> env, Path home, String... args) {
        Cli cli = new Cli(out, err, env, home);
        CommandLine cl = new CommandLine(new PunctualCommand(cli), new Factory(cli));
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler(Exit.handler(cli));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        try {
            return cl.execute(args);
        } finally {
            cli.close();
            out.flush();
            err.flush();
        }
    }

    /** Makes every command with the shared {@link Cli}: each takes it as its constructor's only argument. */
    private record Factory(Cli cli) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> type) throws Exception {
            try {
                return type.getDeclaredConstructor(Cli.class).newInstance(cli);
            } catch (NoSuchMethodException notOurs) {
                return CommandLine.defaultFactory().create(type);
            }
        }
    }
}
