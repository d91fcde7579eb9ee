package dev.punctual.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every scenario's row, whichever class ran it, and the table the suite prints and writes to
 * {@code fault-report.md} once, at its end: one row a scenario in scenario order, the total, then each scenario's
 * violations and findings.
 */
final class FaultReport {
    private final List<Checker.Result> results = new CopyOnWriteArrayList<>();

    void add(Checker.Result r) {
        results.add(r);
    }

    /** 1, 1b, 2, 2b, 2c, 3, …: whatever order the classes ran in. */
    private List<Checker.Result> inScenarioOrder() {
        return results.stream()
                .sorted(Comparator.comparingInt(
                                (Checker.Result r) -> r.scenario().matches("^\\d+.*")
                                        ? Integer.parseInt(r.scenario().replaceAll("^(\\d+).*", "$1"))
                                        : 99)
                        .thenComparing(Checker.Result::scenario))
                .toList();
    }

    String table() {
        StringBuilder sb = new StringBuilder();
        sb.append("| scenario | runs | lost | overlapping | duplicates | seconds | notes |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---|\n");
        int runs = 0;
        int lost = 0;
        int overlapping = 0;
        int duplicates = 0;
        double seconds = 0;
        List<Checker.Result> sorted = inScenarioOrder();
        for (Checker.Result r : sorted) {
            sb.append(r.row()).append('\n');
            runs += r.runs();
            lost += r.lost();
            overlapping += r.overlapping();
            duplicates += r.duplicates();
            seconds += r.seconds();
        }
        sb.append(String.format(
                Locale.ROOT,
                "| **total** | **%d** | **%d** | **%d** | **%d** | %.1f | |%n",
                runs,
                lost,
                overlapping,
                duplicates,
                seconds));
        StringBuilder details = new StringBuilder();
        for (Checker.Result r : sorted) {
            if (!r.problems().isEmpty() || !r.findings().isEmpty()) {
                details.append("\n### ").append(r.scenario()).append("\n\n");
                r.problems().stream()
                        .limit(30)
                        .forEach(p -> details.append("- violation: ").append(p).append('\n'));
                r.findings().stream()
                        .limit(30)
                        .forEach(f -> details.append("- finding: ").append(f).append('\n'));
            }
        }
        return sb.toString() + (details.isEmpty() ? "" : "\nDetails:\n" + details);
    }

    /** Prints the table and writes it to {@code dir/fault-report.md}. */
    void publish(Path dir) throws IOException {
        String table = table();
        System.out.println("\nFault suite (runs per scenario " + FaultScenarios.RUNS + ", soak " + FaultScenarios.SOAK
                + "):\n" + table);
        Files.createDirectories(dir);
        Files.writeString(
                dir.resolve("fault-report.md"),
                "# Fault suite report\n\nRuns per scenario: " + FaultScenarios.RUNS + "; soak: " + FaultScenarios.SOAK
                        + "; generated " + Instant.now() + ".\n\n" + table);
    }
}
