package dev.punctual.bench.dispatch;

import dev.punctual.bench.Machine;
import dev.punctual.bench.MarkdownTable;
import dev.punctual.core.config.Deployment;
import dev.punctual.core.config.Sweep;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** How fast the sweeper moves a minute's worth of due runs into SQS, with a region's latency modelled. */
@Command(
        name = "dispatch",
        mixinStandardHelpOptions = true,
        description = "The sweeper alone (no executors) on the embedded emulators, in this process: N recurring jobs"
                + " whose occurrences fall due in the same minutes, one sweep per minute as on AWS. Per sweep: its"
                + " duration, runs sent and their rate, how many were in SQS before their due instant, AWS calls"
                + " and DynamoDB units per run.")
public final class DispatchCommand implements Callable<Integer> {
    @Option(
            names = "--jobs",
            defaultValue = "10000",
            description = "Jobs, each due once a minute (default: ${DEFAULT-VALUE}).")
    int jobs;

    @Option(
            names = "--kind",
            defaultValue = "mixed",
            description = "interval, cron (every minute at a second) or mixed, half each (default: ${DEFAULT-VALUE}).")
    String kind;

    @Option(
            names = "--minutes",
            defaultValue = "2",
            description = "Minutes swept, one sweep each (default: ${DEFAULT-VALUE}).")
    int minutes;

    @Option(
            names = "--latency-ms",
            defaultValue = "8",
            description = "Added before every AWS call, in the SDK's pipeline (default: ${DEFAULT-VALUE}; 0: none).")
    int latencyMs;

    @Option(
            names = "--transaction-latency-ms",
            defaultValue = "15",
            description = "Added instead before a DynamoDB transaction (default: ${DEFAULT-VALUE}).")
    int transactionLatencyMs;

    @Option(
            names = "--shards",
            defaultValue = "" + Deployment.DEFAULT_SHARDS,
            description = "Due-index shards per minute bucket (default: ${DEFAULT-VALUE}).")
    int shards;

    @Option(
            names = "--deadline-s",
            defaultValue = "60",
            description = "The sweeper Lambda's timeout: each sweep stops sending 15 s before it, as SweepHandler's"
                    + " does (default: ${DEFAULT-VALUE}).")
    int deadlineSeconds;

    @Option(
            names = "--concurrency",
            defaultValue = "" + Sweep.DEFAULT_DISPATCH_CONCURRENCY,
            description = "Jobs each sweep worker moves on at once (punctual.dispatch-concurrency; default:"
                    + " ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(
            names = "--workers",
            defaultValue = "1",
            description = "Sweep workers, each sweeping its share of the shards at once (default: ${DEFAULT-VALUE}).")
    int workers;

    @Override
    public Integer call() throws Exception {
        if (!List.of("interval", "cron", "mixed").contains(kind)) {
            throw new IllegalArgumentException("--kind must be interval, cron or mixed");
        }
        DispatchScenario.Options o = new DispatchScenario.Options(
                jobs,
                kind,
                minutes,
                Duration.ofMillis(latencyMs),
                Duration.ofMillis(latencyMs == 0 ? 0 : transactionLatencyMs),
                shards,
                concurrency,
                workers,
                Duration.ofSeconds(deadlineSeconds));
        List<DispatchScenario.Sweep> sweeps;
        try (DispatchScenario s = new DispatchScenario(o)) {
            sweeps = s.run();
        }
        System.out.println(report(o, sweeps));
        return 0;
    }

    private String report(DispatchScenario.Options o, List<DispatchScenario.Sweep> sweeps) {
        StringBuilder b = new StringBuilder("## Dispatch: ")
                .append(o.jobs())
                .append(' ')
                .append(o.kind())
                .append(" jobs due each minute\n\n");
        b.append("Commit ")
                .append(System.getProperty("punctual.bench.commit", "unknown"))
                .append("; ");
        b.append(String.join("; ", Machine.describe())).append("\n\n");
        b.append(String.format(
                Locale.ROOT,
                "Modelled latency: %d ms a call, %d ms a transaction (in the SDK's pipeline, every attempt). Not"
                        + " modelled: AWS's limits (partition throughput, throttling, SQS rates), latency's"
                        + " variance. Shards: %d; sweep workers: %d, each moving %d jobs on at once and held to %d s"
                        + " (the sweeper Lambda's timeout: it stops sending 15 s before). Jobs over %d tenants.%n%n",
                o.latency().toMillis(),
                o.transactionLatency().toMillis(),
                o.shards(),
                o.workers(),
                o.concurrency(),
                deadlineSeconds,
                DispatchScenario.TENANTS));
        MarkdownTable t = new MarkdownTable(
                "due minute",
                "sweep s",
                "within " + deadlineSeconds + " s",
                "sent",
                "runs/s",
                "in SQS before due",
                "left for next sweep",
                "latest send after due",
                "calls per run",
                "sweeper CPU ms/run",
                "WCU/run",
                "RCU/run",
                "load 1 min");
        for (DispatchScenario.Sweep s : sweeps) {
            t.row(
                    s.dueMinute().toString(),
                    String.format(Locale.ROOT, "%.1f", s.seconds()),
                    s.seconds() <= deadlineSeconds ? "yes" : "no",
                    Integer.toString(s.sent()),
                    String.format(Locale.ROOT, "%.0f", s.sent() / s.seconds()),
                    String.format(Locale.ROOT, "%d (%.1f %%)", s.inTime(), 100.0 * s.inTime() / Math.max(1, s.sent())),
                    Integer.toString(s.deferred()),
                    s.inTime() == s.sent()
                            ? "-"
                            : String.format(Locale.ROOT, "%.1f s", s.worstLate().toMillis() / 1e3),
                    calls(s.callsPerRun()),
                    String.format(Locale.ROOT, "%.2f", s.sweeperCpuMsPerRun()),
                    String.format(Locale.ROOT, "%.2f", s.writeUnitsPerRun()),
                    String.format(Locale.ROOT, "%.2f", s.readUnitsPerRun()),
                    s.load());
        }
        return b.append(t.render()).toString();
    }

    private static String calls(Map<String, Double> perRun) {
        double total = perRun.entrySet().stream()
                .filter(e -> !e.getKey().startsWith("s3:"))
                .mapToDouble(Map.Entry::getValue)
                .sum();
        return String.format(Locale.ROOT, "%.2f: ", total)
                + perRun.entrySet().stream()
                        .filter(e -> e.getValue() >= 0.005)
                        .map(e -> e.getKey().replaceFirst("^[a-z0-9]+:", "") + " "
                                + String.format(Locale.ROOT, "%.2f", e.getValue()))
                        .collect(Collectors.joining(", "));
    }
}
