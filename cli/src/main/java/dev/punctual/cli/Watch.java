package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/**
 * {@code --watch} on a listing: it is asked again every {@code --interval} seconds and what changed is printed, as
 * {@code kubectl get -w} does: the whole table first, then each row that is new or changed (with {@code -o json},
 * each such item as one line of JSON), until the command is interrupted. A mixin of the list commands.
 */
final class Watch {
    @Option(
            names = {"-w", "--watch"},
            description = "After the list, print each item that appears or changes, until interrupted.")
    boolean on;

    @Option(
            names = "--interval",
            defaultValue = "2",
            paramLabel = "SECONDS",
            description = "How often --watch asks again (default ${DEFAULT-VALUE}, at least 1).")
    int intervalSeconds;

    /**
     * Prints {@code fetch}'s rows once, or, with {@code --watch}, for ever: each round's rows keyed by {@code key},
     * printed when new or different from the last round's.
     */
    void print(Cli cli, Supplier<List<JsonNode>> fetch, Function<JsonNode, String> key, Table table) {
        if (!on) {
            List<JsonNode> rows = fetch.get();
            cli.print(rows, out -> table.print(out, rows));
            return;
        }
        if (intervalSeconds < 1) {
            throw new Cli.UsageException("--interval must be at least 1 (seconds)");
        }
        Map<String, String> last = new HashMap<>();
        boolean first = true;
        while (!Thread.currentThread().isInterrupted()) {
            List<JsonNode> rows = fetch.get();
            List<JsonNode> changed = new ArrayList<>();
            Map<String, String> now = new HashMap<>();
            for (JsonNode row : rows) {
                String k = key.apply(row);
                now.put(k, row.toString());
                if (!row.toString().equals(last.get(k))) {
                    changed.add(row);
                }
            }
            if (cli.output == Cli.Output.table) {
                List<String> lines = table.lines(changed);
                (first ? lines : lines.subList(1, lines.size())).forEach(cli.out::println);
            } else {
                changed.forEach(row -> cli.out.println(row.toString()));
            }
            cli.out.flush();
            last = now;
            first = false;
            try {
                // The polling interval of a command the user stops: not a wait for a condition.
                Thread.sleep(intervalSeconds * 1000L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
