package dev.punctual.bench.compare;

import dev.punctual.bench.MarkdownTable;
import dev.punctual.bench.Samples;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/** The comparison's tables: one row per system and scenario, then Punctual's cost per run. */
final class Report {
    private Report() {}

    static String table(List<Result> results) {
        MarkdownTable t = new MarkdownTable(
                "scenario",
                "system",
                "created/s>",
                "lateness p50 / p95 / p99 / max>",
                "runs/s>",
                "missing>",
                "dup>",
                "early>",
                "CPU s / 1k runs>",
                "peak RSS MiB>",
                "vs best peer>",
                "load avg at start");
        for (Result r : results) {
            t.row(
                    r.scenario().name(),
                    r.system(),
                    f0(r.creationRate()) + (r.createdLate() ? " (after T0)" : ""),
                    lateness(r.lateness()),
                    r.scenario().allAtOnce() ? f0(r.throughput()) : "—",
                    Integer.toString(r.missing()),
                    Integer.toString(r.duplicates()),
                    Integer.toString(r.early()),
                    f1(r.cpuPerThousand()),
                    f0(r.peakRssMib()),
                    versusBestPeer(r, results),
                    r.loadAverage());
        }
        StringBuilder cpu = new StringBuilder("\nWhere the CPU went (seconds, from T0's creation to the end):\n\n");
        for (Result r : results) {
            cpu.append("- ")
                    .append(r.scenario().name())
                    .append(", ")
                    .append(r.system())
                    .append(": ");
            cpu.append(String.join(
                    ", ",
                    r.cpuByKind().entrySet().stream()
                            .map(e -> e.getKey() + " " + f1(e.getValue()))
                            .toList()));
            cpu.append('\n');
        }
        return t.render() + cpu;
    }

    /**
     * For Punctual's rows: its burst throughput over the best peer's, or the best peer's steady p99 lateness over
     * its own. Either way, at least 1.0 means Punctual did at least as well.
     */
    static String versusBestPeer(Result r, List<Result> all) {
        if (!r.punctual() || r.lateness() == null) {
            return "—";
        }
        List<Result> peers = all.stream()
                .filter(p -> !p.punctual() && p.scenario().equals(r.scenario()) && p.lateness() != null)
                .toList();
        if (peers.isEmpty()) {
            return "(no peer)";
        }
        if (r.scenario().isBurst()) {
            double best = peers.stream().mapToDouble(Result::throughput).max().orElseThrow();
            return String.format(Locale.ROOT, "throughput ×%.2f", r.throughput() / best);
        }
        double best =
                peers.stream().mapToDouble(p -> p.lateness().p99Nanos()).min().orElseThrow();
        return String.format(
                Locale.ROOT, "p99 ×%.2f", best / Math.max(1, r.lateness().p99Nanos()));
    }

    /**
     * The priority scenarios' starts by lane ({@link Lanes}): per lane, then whether high went first and low kept
     * starting, and the longest wait beside aging's promise. Empty when no result has lanes.
     */
    static String lanes(List<Result> results) {
        List<Result> withLanes = results.stream().filter(r -> r.lanes() != null).toList();
        if (withLanes.isEmpty()) {
            return "";
        }
        MarkdownTable perLane = new MarkdownTable(
                "scenario", "lane", "started>", "lateness p50 / p99 / max>", "runs/s (T0 → lane's last start)>");
        MarkdownTable order = new MarkdownTable(
                "scenario",
                "high window (T0 → last high start)>",
                "low starts in it>",
                "high among the first starts>",
                "longest low gap>",
                "CPU s / 1k runs>",
                "aging (low → also normal after ~13 min)");
        for (Result r : withLanes) {
            Lanes l = r.lanes();
            for (Lanes.Lane lane : l.lanes()) {
                perLane.row(
                        r.scenario().name(),
                        lane.name(),
                        lane.started() + " of " + lane.expected(),
                        lane.lateness() == null ? "none started" : p50p99max(lane.lateness()),
                        f0(lane.throughput()));
            }
            order.row(
                    r.scenario().name(),
                    ms(l.highWindowNanos() / 1e6),
                    Integer.toString(l.lowDuringHigh()),
                    l.highAmongFirst() + " of " + r.scenario().high(),
                    ms(l.longestLowGapNanos() / 1e6),
                    f1(r.cpuPerThousand()),
                    l.aging());
        }
        return "Lanes: each lane's first starts (the binary's stamps) from T0, when every run was due.\n\n"
                + perLane.render()
                + "\nHigh first, low not starved: the low runs that started while high ones were still to start (from T0"
                + " to the last high start), how many of the first starts (as many as there are high runs) were high,"
                + " and the longest time without a low start (T0 to the first counts).\n\n"
                + order.render();
    }

    static String p50p99max(Samples.Summary s) {
        return ms(s.p50Nanos() / 1e6) + " / " + ms(s.p99Nanos() / 1e6) + " / " + ms(s.maxNanos() / 1e6);
    }

    static String costs(List<Result> results) {
        MarkdownTable t = new MarkdownTable(
                "scenario",
                "DynamoDB calls",
                "WCU table>",
                "WCU indexes>",
                "RCU>",
                "SQS requests>",
                "SQS calls",
                "S3 requests>",
                "failed calls>",
                "retries>",
                "USD / million runs>",
                "without S3>");
        for (Result r : results) {
            if (r.usage().isEmpty()) {
                continue;
            }
            Usage u = r.usage().get();
            double n = r.scenario().runs();
            // wcu:<table> and wcu:<table>:<index>
            double wcuTable = u.sum(k -> k.startsWith("wcu:") && k.indexOf(':', 4) < 0);
            double wcuIndex = u.sum(k -> k.startsWith("wcu:") && k.indexOf(':', 4) > 0);
            double rcu = u.sum("rcu:");
            double sqs = u.sum("calls:Sqs:");
            double s3put = u.sum("calls:S3:PutObject");
            double s3other = u.sum("calls:S3:") - s3put;
            double withoutS3 = ((wcuTable + wcuIndex) * Prices.DYNAMODB_WRITE_UNIT
                            + rcu * Prices.DYNAMODB_READ_UNIT
                            + sqs * Prices.SQS_REQUEST)
                    / n;
            double all = withoutS3 + (s3put * Prices.S3_PUT + s3other * Prices.S3_GET) / n;
            t.row(
                    r.scenario().name(),
                    calls(u, n, "DynamoDb"),
                    f2(wcuTable / n),
                    f2(wcuIndex / n),
                    f2(rcu / n),
                    f2(sqs / n),
                    calls(u, n, "Sqs"),
                    f2((s3put + s3other) / n),
                    f2(u.sum("failed:") / n),
                    f2((u.sum("attempts:") - u.sum("calls:")) / n),
                    f2(all),
                    f2(withoutS3));
        }
        return "Punctual's calls and capacity units per run, as its processes counted them (`Metering`), priced at "
                + "us-east-1 on-demand list prices; EventBridge Scheduler: "
                + f2(Prices.EVENTBRIDGE_SCHEDULER) + " USD per million invocations.\n\n" + t.render();
    }

    /**
     * Where the units of {@link #costs} went: per run, by DynamoDB operation and table or index
     * ({@code wcu-by|rcu-by:<operation>:<table>[:<index>]}), largest first.
     */
    static String unitsByOperation(List<Result> results) {
        MarkdownTable t = new MarkdownTable("scenario", "operation", "table or index", "WCU>", "RCU>");
        for (Result r : results) {
            if (r.usage().isEmpty()) {
                continue;
            }
            double n = r.scenario().runs();
            Map<String, double[]> rows = new TreeMap<>();
            r.usage().get().counters().forEach((k, v) -> {
                boolean write = k.startsWith("wcu-by:");
                if ((write || k.startsWith("rcu-by:")) && v > 0) {
                    String rest = k.substring("wcu-by:".length());
                    rows.computeIfAbsent(rest, x -> new double[2])[write ? 0 : 1] += v / n;
                }
            });
            rows.entrySet().stream()
                    .sorted((a, b) ->
                            Double.compare(b.getValue()[0] + b.getValue()[1], a.getValue()[0] + a.getValue()[1]))
                    .forEach(e -> {
                        int colon = e.getKey().indexOf(':');
                        t.row(
                                r.scenario().name(),
                                e.getKey().substring(0, colon),
                                e.getKey().substring(colon + 1),
                                f2(e.getValue()[0]),
                                f2(e.getValue()[1]));
                    });
        }
        return "Where those units went, per run:\n\n" + t.render();
    }

    /** A service's calls per run by operation, largest first, e.g. {@code GetItem 4.00, TransactWriteItems 3.00}. */
    private static String calls(Usage u, double n, String service) {
        String prefix = "calls:" + service + ":";
        Map<String, Double> ops = new TreeMap<>();
        u.counters().forEach((k, v) -> {
            if (k.startsWith(prefix) && v > 0) {
                ops.put(k.substring(prefix.length()), v / n);
            }
        });
        return ops.entrySet().stream()
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .map(e -> e.getKey() + " " + f2(e.getValue()))
                .reduce((a, b) -> a + ", " + b)
                .orElse("none");
    }

    static String line(Result r) {
        return r.system() + ", " + r.scenario().name() + ": " + lateness(r.lateness()) + "; started " + r.started()
                + ", missing " + r.missing() + ", duplicates " + r.duplicates() + ", " + f0(r.throughput())
                + " runs/s";
    }

    static String lateness(Samples.Summary s) {
        if (s == null) {
            return "none started";
        }
        ToDoubleFunction<Long> ms = n -> n / 1e6;
        return ms(ms.applyAsDouble(s.p50Nanos())) + " / " + ms(ms.applyAsDouble(s.p95Nanos())) + " / "
                + ms(ms.applyAsDouble(s.p99Nanos())) + " / " + ms(ms.applyAsDouble(s.maxNanos()));
    }

    /** Milliseconds under 10 s, seconds above. */
    static String ms(double ms) {
        return Math.abs(ms) < 10_000
                ? String.format(Locale.ROOT, "%.1f ms", ms)
                : String.format(Locale.ROOT, "%.2f s", ms / 1000);
    }

    static String f0(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
