package dev.punctual.bench.compare;

import dev.punctual.bench.Machine;
import dev.punctual.bench.Samples;
import dev.punctual.bench.compare.peers.DbSchedulerContender;
import dev.punctual.bench.compare.peers.QuartzContender;
import dev.punctual.bench.compare.punctual.PunctualContender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Punctual side by side with its peers: each system is started fresh for each scenario, on the same slots, runs the
 * same binary for the same dues, and is measured from the outside (the binary's own start stamps, /proc for CPU and
 * memory). One table; then Punctual's cost per run from its own metering.
 */
@Command(
        name = "compare",
        mixinStandardHelpOptions = true,
        description = "Bursts and a steady load against Punctual and its peers (db-scheduler and Quartz on "
                + "PostgreSQL): lateness, throughput, missing and duplicate runs, CPU, memory, and Punctual's calls "
                + "and capacity units per run.")
public final class CompareCommand implements Callable<Integer> {
    @Option(
            names = "--systems",
            split = ",",
            defaultValue = "punctual,quartz,dbscheduler",
            description = "Systems to compare, in order: punctual, punctual-bare (the same uninstrumented: no call "
                    + "metering, no start timing, as deployed), punctual-tools (runs started through util-linux's"
                    + " tools, as without the sandbox's helper), quartz, dbscheduler (poll 1 s), dbscheduler-10s "
                    + "(default: ${DEFAULT-VALUE}).")
    List<String> systems;

    @Option(
            names = "--bursts",
            split = ",",
            defaultValue = "1000,10000",
            description = "Burst sizes: that many one-shot runs all due at one instant (default: ${DEFAULT-VALUE}; "
                    + "0 for none).")
    List<Integer> bursts;

    @Option(
            names = "--steady",
            defaultValue = "2x300",
            description = "Steady load: <runs due at each whole second>x<seconds> (default: ${DEFAULT-VALUE}, issue "
                    + "16's; 0 for none).")
    String steady;

    @Option(
            names = "--recurring",
            defaultValue = "0",
            description = "Recurring jobs: <jobs>x<every, seconds>x<seconds>, e.g. 50x10x120 (Punctual alone: what "
                    + "an occurrence of a recurring job costs; default: ${DEFAULT-VALUE}, none).")
    String recurring;

    @Option(
            names = "--priority",
            defaultValue = "0",
            description = "Runs in two lanes: <low>x<high>, e.g. 5000x50: that many low runs, then that many high "
                    + "ones, all due at one instant, the low ones created (and sent) first (Punctual alone: issue 36's "
                    + "lanes; default: ${DEFAULT-VALUE}, none).")
    String priority;

    @Option(names = "--nodes", defaultValue = "2", description = "Nodes (executors) per system (default: 2).")
    int nodes;

    @Option(names = "--slots", defaultValue = "4", description = "Run slots per node (default: 4).")
    int slots;

    @Option(
            names = "--warmup",
            defaultValue = "200",
            description = "Runs each system starts before each measured scenario, all due within a few seconds, so "
                    + "that its JVMs are compiled and its caches filled, as in a system that has been up a while "
                    + "(default: ${DEFAULT-VALUE}; 0 measures from a cold start).")
    int warmup;

    @Option(
            names = "--pin",
            description = "Pin each system's store (Punctual's local runner with its emulators; PostgreSQL) to CPU 0 "
                    + "and its workers (executors, peer nodes, and what they start) to CPU 1, with taskset "
                    + "(default: off, every process on every CPU).")
    boolean pin;

    private final List<String> notes = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        // The peers' clients log through slf4j-simple, INFO by default: progress is ours to print.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        List<Scenario> scenarios = scenarios();
        if (pin) {
            Pin.enable();
        }
        Path dir = Files.createTempDirectory("punctual-compare-");
        // The binary, the starts file and each system's state live here; sandboxed runs must traverse it.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path binary = StampBinary.compile(dir);
        List<Result> results = new ArrayList<>();
        System.out.println("# Punctual and its peers, side by side\n");
        Machine.describe().forEach(System.out::println);
        System.out.println("- each system: " + nodes + " nodes × " + slots + " run slots, started fresh per scenario");
        if (Pin.enabled()) {
            System.out.println("- " + Pin.describe());
        }
        System.out.println("- binary: `gcc -O2 -static` of `StampBinary.SOURCE`: appends `<key> <due> <start>` to a "
                + "file, stamped by its own clock, exits 0\n");
        for (Scenario sc : scenarios) {
            for (String system : systems) {
                Contender c = contender(system);
                if (sc.isRecurring() && !c.schedulesRecurring()) {
                    progress(c.name() + ": no recurring jobs here, " + sc.name() + " skipped");
                    c.close();
                    continue;
                }
                if (sc.isPriority() && !c.schedulesPriority()) {
                    progress(c.name() + ": no lanes here, " + sc.name() + " skipped");
                    c.close();
                    continue;
                }
                results.add(run(c, sc, binary, dir));
            }
        }
        System.out.println(Report.table(results));
        String lanes = Report.lanes(results);
        if (!lanes.isEmpty()) {
            System.out.println(lanes);
        }
        System.out.println(Report.costs(results));
        System.out.println(Report.unitsByOperation(results));
        if (!notes.isEmpty()) {
            System.out.println("\nWhat the systems said of their own runs:\n");
            notes.forEach(System.out::println);
        }
        return 0;
    }

    private List<Scenario> scenarios() {
        List<Scenario> out = new ArrayList<>();
        bursts.stream().filter(n -> n > 0).forEach(n -> out.add(Scenario.burst(n)));
        if (!steady.equals("0")) {
            String[] p = steady.split("x", 2);
            out.add(Scenario.steady(Integer.parseInt(p[0]), Integer.parseInt(p[1])));
        }
        if (!recurring.equals("0")) {
            String[] p = recurring.split("x", 3);
            out.add(Scenario.recurring(Integer.parseInt(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2])));
        }
        if (!priority.equals("0")) {
            String[] p = priority.split("x", 2);
            if (p.length != 2) {
                throw new IllegalArgumentException("--priority <low>x<high>, e.g. 5000x50: " + priority);
            }
            out.add(Scenario.priority(Integer.parseInt(p[0]), Integer.parseInt(p[1])));
        }
        return out;
    }

    static Contender contender(String system) {
        Supplier<Contender> s = switch (system) {
            case "punctual" -> () -> new PunctualContender(true, true);
            case "punctual-bare" -> () -> new PunctualContender(true, false);
            case "punctual-tools" -> () -> new PunctualContender(false, true);
            case "quartz" -> QuartzContender::new;
            case "dbscheduler" -> () -> new DbSchedulerContender(Duration.ofSeconds(1));
            case "dbscheduler-10s" -> () -> new DbSchedulerContender(Duration.ofSeconds(10));
            default -> throw new IllegalArgumentException("unknown system " + system + "; one of " + SYSTEMS);
        };
        return s.get();
    }

    static final List<String> SYSTEMS =
            List.of("punctual", "punctual-bare", "punctual-tools", "quartz", "dbscheduler", "dbscheduler-10s");

    private Result run(Contender c, Scenario sc, Path binary, Path dir) throws Exception {
        Path work = Files.createDirectories(dir.resolve(sc.kind() + sc.runs() + "-" + System.nanoTime()));
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path starts = StampBinary.startsFile(work, "starts.txt");
        try (c) {
            progress("starting " + sc.name() + " on " + c.getClass().getSimpleName());
            c.start(new Contender.Setup(binary, starts, nodes, slots, work));
            warmUp(c, starts);
            c.beginMeasuring();
            String load = Files.readString(Path.of("/proc/loadavg")).strip();
            double cpu0 = ProcessCost.cpuSeconds(c.processes());
            Map<String, Double> kinds0 = ProcessCost.cpuByKind(c.processes());
            Optional<Usage> usage0 = c.usage();
            Instant t0 = Instant.now()
                    .plus(sc.lead())
                    .truncatedTo(ChronoUnit.SECONDS)
                    .plusSeconds(1);
            List<Contender.Due> dues = sc.dues(t0);
            long created0 = System.nanoTime();
            if (sc.isRecurring()) {
                c.scheduleRecurring(sc.series(t0));
            } else {
                c.schedule(dues);
            }
            double creation = (System.nanoTime() - created0) / 1e9;
            boolean late = Instant.now().isAfter(t0);
            progress(String.format(
                    "%s: %d created in %.1f s (%.0f/s)%s; first due at %s",
                    c.name(), sc.created(), creation, sc.created() / creation, late ? " AFTER T0" : "", t0));
            Starts seen = await(starts, dues, sc);
            double cpu = ProcessCost.cpuSeconds(c.processes()) - cpu0;
            double rss = ProcessCost.peakRssMib(c.processes());
            Map<String, Double> kinds = new TreeMap<>(ProcessCost.cpuByKind(c.processes()));
            kinds0.forEach((k, v) -> kinds.merge(k, -v, Double::sum));
            Optional<Usage> usage = c.usage().flatMap(u -> usage0.map(u::minus));
            Set<String> keys = keys(dues);
            Samples lateness = seen.lateness(dues);
            double span = (seen.lastStartNanos() - t0.toEpochMilli() * 1_000_000L) / 1e9;
            Result r = new Result(
                    c.name(),
                    c instanceof PunctualContender,
                    sc,
                    load,
                    creation,
                    late,
                    lateness.size() == 0 ? null : lateness.summary(),
                    seen.distinct(),
                    seen.missing(keys),
                    seen.duplicates(),
                    seen.early(dues),
                    span,
                    cpu,
                    kinds,
                    rss,
                    usage,
                    sc.isPriority() ? Lanes.of(seen, dues, t0) : null);
            progress(Report.line(r));
            c.notes().forEach(n -> notes.add("- " + sc.name() + ", " + c.name() + ": " + n));
            return r;
        }
    }

    /**
     * Runs {@link #warmup} runs due 5 s (plus time to create them at 20/s) from now, 1 ms apart, waits for them, and empties
     * the starts file: the measured scenario sees only its own starts, and the system's CPU and calls are counted
     * from after it.
     */
    private void warmUp(Contender c, Path starts) throws Exception {
        if (warmup <= 0) {
            return;
        }
        Instant at = Instant.now().plusSeconds(5 + warmup / 20);
        List<Contender.Due> dues = new ArrayList<>();
        for (int i = 0; i < warmup; i++) {
            dues.add(new Contender.Due("w" + i, at.plusMillis(i)));
        }
        c.schedule(dues);
        Starts seen = await(starts, dues, Scenario.burst(warmup));
        progress(c.name() + ": warmed up with " + seen.distinct() + " of " + warmup + " runs");
        // Every warm-up run has started and the 5 s after the last were waited out: none writes any more.
        Files.write(starts, new byte[0]);
    }

    /**
     * Reads the starts file until every run has started (then 5 s more, to see duplicates that follow) or until the
     * scenario's patience after the last due has passed.
     */
    private static Starts await(Path starts, List<Contender.Due> dues, Scenario sc)
            throws IOException, InterruptedException {
        Instant lastDue = dues.stream()
                .map(Contender.Due::at)
                .max(Comparator.naturalOrder())
                .orElseThrow();
        Instant giveUp = lastDue.plus(sc.patience());
        Set<String> keys = keys(dues);
        Instant allSeen = null;
        Instant nextNote = Instant.now().plusSeconds(10);
        while (true) {
            Starts s = Starts.read(starts);
            Instant now = Instant.now();
            if (allSeen == null && s.missing(keys) == 0) {
                allSeen = now;
            }
            if ((allSeen != null && now.isAfter(allSeen.plusSeconds(5))) || now.isAfter(giveUp)) {
                return s;
            }
            if (now.isAfter(nextNote)) {
                progress("  " + s.distinct() + " of " + keys.size() + " started");
                nextNote = now.plusSeconds(10);
            }
            Thread.sleep(Duration.ofMillis(250));
        }
    }

    private static Set<String> keys(List<Contender.Due> dues) {
        Set<String> keys = new HashSet<>();
        dues.forEach(d -> keys.add(d.key()));
        return keys;
    }

    static void progress(String line) {
        System.err.println("[compare " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "] " + line);
    }
}
