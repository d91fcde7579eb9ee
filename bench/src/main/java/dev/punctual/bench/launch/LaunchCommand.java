package dev.punctual.bench.launch;

import dev.punctual.bench.FixedThreads;
import dev.punctual.bench.Machine;
import dev.punctual.bench.MarkdownTable;
import dev.punctual.bench.Samples;
import dev.punctual.bench.Trees;
import dev.punctual.core.config.Execution;
import dev.punctual.core.config.SandboxConfig;
import dev.punctual.core.config.Storage;
import dev.punctual.core.exec.ProcessRunner;
import dev.punctual.core.exec.Sandbox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The start cost of a run's binary: bare ProcessBuilder, the executor's ProcessRunner, and with the sandbox. */
@Command(
        name = "launch",
        mixinStandardHelpOptions = true,
        description = "Measures launching a binary that exits at once: a bare ProcessBuilder (baseline), "
                + "ProcessRunner, and ProcessRunner with the sandbox (root only), plus the sandbox's own steps.")
public final class LaunchCommand implements Callable<Integer> {
    /** The helper core's build makes (bin/bench runs from the project's root). */
    static final Path BUILT_HELPER = Path.of("core", "target", SandboxConfig.HELPER_NAME);

    @Option(
            names = "--threads",
            split = ",",
            defaultValue = "1,4",
            description = "Worker thread counts, one set of rows each (default: ${DEFAULT-VALUE}).")
    List<Integer> threads;

    @Option(names = "--runs", defaultValue = "1000", description = "Measured runs per row (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(
            names = "--warmup",
            defaultValue = "200",
            description = "Runs before each row's measured ones, at the same thread count, not counted "
                    + "(default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(
            names = "--binaries",
            split = ",",
            defaultValue = "tiny",
            description = "tiny (gcc -O2, dynamic), static (gcc -O2 -static), true (/bin/true) "
                    + "(default: ${DEFAULT-VALUE}).")
    List<String> binaries;

    @Option(
            names = "--uid-base",
            description =
                    "First uid of the sandbox's pool (default: Punctual's, " + SandboxConfig.DEFAULT_UID_BASE + ").")
    int uidBase = SandboxConfig.DEFAULT_UID_BASE;

    @Option(
            names = "--dir",
            description = "Where its working directory (binaries, the sandbox's directory) is made (default: the "
                    + "system's temp directory, where runs cannot get filesystems of their own).")
    Path parent;

    @Option(
            names = "--sandbox-disk",
            defaultValue = "auto",
            description = "punctual.sandbox-disk: auto, filesystem (needs --dir outside /tmp) or watch "
                    + "(default: ${DEFAULT-VALUE}).")
    String sandboxDisk;

    @Option(
            names = "--sandbox-network",
            defaultValue = "none",
            description = "punctual.sandbox-network: none (a network namespace of its own per run, as bin/run-executor "
                    + "gives runs as root) or shared (default: ${DEFAULT-VALUE}).")
    String sandboxNetwork;

    @Option(
            names = "--sandbox-helper",
            description = "punctual.sandbox-helper, which starts runs in one exec (default: the build's, "
                    + "core/target/punctual-sandbox); the rows through util-linux's tools are measured beside it.")
    Path sandboxHelper;

    @Override
    public Integer call() throws Exception {
        if (runs < 1 || warmup < 0 || threads.stream().anyMatch(t -> t < 1)) {
            System.err.println("--runs and --threads must be at least 1, --warmup at least 0");
            return 2;
        }
        Path dir = parent == null
                ? Files.createTempDirectory("punctual-bench-")
                : Files.createTempDirectory(parent, "punctual-bench-");
        try {
            // Sandboxed runs must traverse it to reach their own directories and binary copies.
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
            report(dir);
            return 0;
        } finally {
            Trees.delete(dir);
        }
    }

    private void report(Path dir) throws Exception {
        List<Binary> made = new ArrayList<>();
        for (String name : binaries) {
            made.add(Binary.make(name, dir));
        }
        Path helper = sandboxHelper != null ? sandboxHelper : BUILT_HELPER;
        RunnerSettings tools = RunnerSettings.defaults(dir, null);
        RunnerSettings settings = RunnerSettings.defaults(dir, helper);
        // Each sandbox its own directory and uids: a Sandbox holds its uids by file locks, which one JVM cannot take
        // twice.
        SandboxConfig toolsSandbox = sandboxConfig(dir.resolve("sandbox"), uidBase, helper);
        SandboxConfig helperSandbox =
                sandboxConfig(dir.resolve("sandbox-helper"), uidBase + SandboxConfig.DEFAULT_UID_COUNT, helper);
        SandboxConfig launcherSandbox =
                sandboxConfig(dir.resolve("sandbox-launcher"), uidBase + 2 * SandboxConfig.DEFAULT_UID_COUNT, helper);
        List<LaunchPath> paths = new ArrayList<>(List.of(new BareProcessBuilder(), new PlainRunner(tools)));
        if (settings.runner().throughHelper()) {
            paths.add(new PlainRunner(settings));
        }
        paths.add(new SandboxedRunner(tools, toolsSandbox));
        if (settings.runner().throughHelper()) {
            paths.add(new SandboxedRunner(RunnerSettings.defaults(dir, helper, false), helperSandbox));
            paths.add(new SandboxedRunner(settings, launcherSandbox));
        }

        StringBuilder out = new StringBuilder("# punctual bench launch\n\n");
        Machine.describe().forEach(l -> out.append(l).append('\n'));
        out.append("\n## Settings\n\n");
        out.append("- runs per row: ")
                .append(runs)
                .append(", after ")
                .append(warmup)
                .append(" warmup runs at the same thread count (not counted); threads: ")
                .append(threads)
                .append(" (platform threads, each launching as fast as it can, no sleeps)\n");
        for (Binary b : made) {
            out.append("- binary `")
                    .append(b.name())
                    .append("`: ")
                    .append(b.origin())
                    .append('\n');
        }
        for (LaunchPath p : paths) {
            out.append("- ")
                    .append(p.name())
                    .append(": ")
                    .append(p.description())
                    .append('\n');
        }
        out.append("- ProcessRunner: log cap ")
                .append(Storage.DEFAULT_LOG_CAP_BYTES)
                .append(" bytes, kill grace ")
                .append(Execution.DEFAULT_KILL_GRACE)
                .append(" (the executor's defaults); the binary's environment: PATH, HOME, TMPDIR, ")
                .append(ProcessRunner.TAG)
                .append(" (set by ProcessRunner) and ")
                .append(new TreeMap<>(settings.env()))
                .append('\n');
        out.append("- tools: ")
                .append(Machine.version("setpriv", "--version"))
                .append("; ")
                .append(Machine.version("gcc", "--version"))
                .append('\n');
        out.append("- environment: ").append(environment()).append("\n\n");
        System.out.print(out);
        System.out.flush();

        MarkdownTable table = new MarkdownTable(
                "path",
                "binary",
                "threads>",
                "runs>",
                "failed>",
                "runs/s>",
                "CPU ms/run>",
                "mean ms>",
                "p50 ms>",
                "p99 ms>",
                "max ms>",
                "overhead vs baseline, ms>");
        List<String> failures = new ArrayList<>();
        for (Binary b : made) {
            for (int t : threads) {
                Double baseline = null;
                for (LaunchPath p : paths) {
                    if (p.skipReason() != null) {
                        table.row(
                                p.name(),
                                b.name(),
                                Integer.toString(t),
                                p.skipReason(),
                                "—",
                                "—",
                                "—",
                                "—",
                                "—",
                                "—",
                                "—",
                                "—");
                        continue;
                    }
                    System.err.printf(
                            "measuring %s, %s, %d thread(s): %d + %d warmup runs%n",
                            p.name(), b.name(), t, runs, warmup);
                    FixedThreads.Measurement m = FixedThreads.measure(t, warmup, runs, w -> trial(p, w, b));
                    Samples.Summary total = m.summary(FixedThreads.TOTAL);
                    String overhead = baseline == null ? "baseline" : "+" + ms(total.meanNanos() - baseline);
                    if (baseline == null) {
                        baseline = total.meanNanos();
                    }
                    row(
                            table,
                            p.name(),
                            b,
                            t,
                            Integer.toString(m.failed()),
                            String.format(Locale.ROOT, "%.0f", m.runsPerSecond()),
                            String.format(Locale.ROOT, "%.1f", m.cpuMsPerRun()),
                            total,
                            overhead);
                    for (String step : p.steps()) {
                        Samples.Summary s = m.summary(step);
                        row(table, "  ↳ " + step, b, t, "—", "—", "—", s, "+" + ms(s.meanNanos()) + " (step)");
                    }
                    m.failures()
                            .forEach((reason, n) -> failures.add(p.name() + ", " + b.name() + ", " + t + " thread(s): "
                                    + n + " × `" + reason + "`"));
                }
            }
        }
        System.out.println("## Results\n");
        System.out.print(table.render());
        System.out.println();
        failures.forEach(f -> System.out.println("- failed: " + f));
        System.out.println("- runs/s: measured runs / wall time from the moment every worker is ready until the last "
                + "run ends. Latencies: each run from launch to exit (and the sandbox's cleanup), queueing for the "
                + "cores included, failed runs too; p50/p99 by nearest rank.");
        System.out.println("- CPU ms/run: this process's CPU and its descendants' with the children each reaped "
                + "(every process a run starts, the binary's own included, and the launcher) over the measured runs, "
                + "per run; not the kernel's own threads (a network namespace's teardown runs in a kworker).");
        System.out.println("- overhead vs baseline: mean latency minus the bare ProcessBuilder's mean at the same "
                + "binary and thread count; for a step row, the step's own mean (the baseline has no such step).");
        System.out.println("- one scan of /proc for a uid's processes (`Sandbox.pidsOf`, run by the sandbox's "
                + "kills and close) over " + Machine.processCount() + " processes: " + procScan());
    }

    private SandboxConfig sandboxConfig(Path where, int firstUid, Path helper) {
        return new SandboxConfig(
                        true,
                        firstUid,
                        SandboxConfig.DEFAULT_UID_COUNT,
                        where,
                        SandboxConfig.Network.parse(sandboxNetwork))
                .withDisk(SandboxConfig.Disk.parse(sandboxDisk), helper);
    }

    private static FixedThreads.Trial trial(LaunchPath p, int worker, Binary b) {
        try {
            return p.trial(worker, b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void row(
            MarkdownTable table,
            String name,
            Binary b,
            int threads,
            String failed,
            String perSecond,
            String cpu,
            Samples.Summary s,
            String overhead) {
        table.row(
                name,
                b.name(),
                Integer.toString(threads),
                Integer.toString(s.count()),
                failed,
                perSecond,
                cpu,
                ms(s.meanNanos()),
                ms(s.p50Nanos()),
                ms(s.p99Nanos()),
                ms(s.maxNanos()),
                overhead);
    }

    private static String ms(double nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / 1e6);
    }

    /** The median of 200 scans, after 20 unmeasured. */
    private String procScan() {
        Samples s = new Samples();
        for (int i = 0; i < 220; i++) {
            long t0 = System.nanoTime();
            Sandbox.pidsOf(uidBase);
            if (i >= 20) {
                s.add(System.nanoTime() - t0);
            }
        }
        return "p50 " + ms(s.summary().p50Nanos()) + " ms, p99 "
                + ms(s.summary().p99Nanos()) + " ms";
    }

    /** The variables bin/bench reads, as they were. */
    private static String environment() {
        Map<String, String> env = new TreeMap<>();
        for (String name : List.of("JAVA_HOME", "BENCH_JAVA_OPTS")) {
            env.put(name, System.getenv().getOrDefault(name, "(unset)"));
        }
        return env.toString();
    }
}
