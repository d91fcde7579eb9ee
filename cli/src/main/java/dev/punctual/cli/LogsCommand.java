package dev.punctual.cli;

import java.time.Duration;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code punctual logs JOB RUN [-f]}: a run's output, followed while it runs. */
@Command(
        name = "logs",
        mixinStandardHelpOptions = true,
        description = {
            "An attempt's stdout and stderr: the latest attempt's unless --attempt.",
            "With -f, waits for a run that has not started and follows a running one until its attempt ends."
        })
final class LogsCommand extends RunCommand.OnRun {
    /** The longest a read waits for new output (the API's limit). */
    static final int WAIT_SECONDS = 20;

    private static final Set<String> NOT_STARTED = Set.of("SCHEDULED", "QUEUED", "FAILED");

    @Option(names = "--attempt", paramLabel = "N", description = "Attempt N's log (from 1).")
    Integer attempt;

    @Option(
            names = {"-f", "--follow"},
            description = "Keep printing new output until the attempt ends.")
    boolean follow;

    LogsCommand(Cli cli) {
        super(cli);
    }

    @Override
    public void run() {
        String runPath = path();
        long offset = 0;
        while (true) {
            ApiClient.Answer a;
            try {
                a = cli.api()
                        .getAnswer(
                                ApiClient.query(
                                        runPath + "/log",
                                        ApiClient.params(
                                                "attempt", attempt,
                                                "offset", offset == 0 ? null : offset,
                                                "wait", follow ? WAIT_SECONDS : null)),
                                Duration.ofSeconds(WAIT_SECONDS + 30));
            } catch (ApiException e) {
                if (follow && e.status == 404 && notStarted(runPath)) {
                    // No attempt has left output yet: wait for one to start.
                    pause();
                    continue;
                }
                throw e;
            }
            cli.out.print(a.body());
            cli.out.flush();
            offset = a.header("Punctual-Log-Offset").map(Long::parseLong).orElse(offset);
            if (!follow
                    || a.header("Punctual-Log-Complete")
                            .map(Boolean::parseBoolean)
                            .orElse(true)) {
                return;
            }
        }
    }

    private boolean notStarted(String runPath) {
        return NOT_STARTED.contains(cli.api().get(runPath).path("state").asText());
    }

    private static void pause() {
        try {
            Thread.sleep(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(0, null, "interrupted");
        }
    }
}
