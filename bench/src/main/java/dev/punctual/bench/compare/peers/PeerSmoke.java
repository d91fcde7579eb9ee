package dev.punctual.bench.compare.peers;

import dev.punctual.bench.Samples;
import dev.punctual.bench.compare.Contender;
import dev.punctual.bench.compare.Contender.Due;
import dev.punctual.bench.compare.StampBinary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A quick end-to-end check of one peer: N runs all due at one instant, then how many started, how many twice, and
 * how late. Not a benchmark (one burst, no warmup): it shows the peer works here before the comparison runs it.
 */
@Command(
        name = "peer-smoke",
        mixinStandardHelpOptions = true,
        description = "Starts db-scheduler or Quartz (2 nodes × 4 slots), schedules N runs due together, and "
                + "reports missing, duplicate and late starts.")
public final class PeerSmoke implements Callable<Integer> {
    @Parameters(index = "0", description = "dbscheduler or quartz.")
    PeerNode.Peer peer;

    @Parameters(index = "1", description = "How many runs.")
    int runs;

    @Option(names = "--nodes", defaultValue = "2", description = "Nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--slots", defaultValue = "4", description = "Threads per node (default: ${DEFAULT-VALUE}).")
    int slots;

    @Option(
            names = "--poll",
            defaultValue = "1s",
            converter = Durations.class,
            description = "Poll interval / idle wait (default: ${DEFAULT-VALUE}).")
    Duration poll;

    @Option(
            names = "--lead",
            defaultValue = "15s",
            converter = Durations.class,
            description = "How long after scheduling starts the runs are due (default: ${DEFAULT-VALUE}).")
    Duration lead;

    @Option(
            names = "--timeout",
            defaultValue = "300s",
            converter = Durations.class,
            description = "How long after the due time to wait for every start (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(
            names = "--keep",
            description = "Keep the temp dir (node logs, starts file) instead of deleting it; prints where it is.")
    boolean keep;

    @Override
    public Integer call() throws Exception {
        Path dir = Files.createTempDirectory("punctual-peers-");
        try {
            // The cluster inside belongs to the postgres user, who must traverse this directory to reach it.
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
            return smoke(dir);
        } finally {
            if (keep) {
                System.out.println("kept " + dir);
            } else {
                Postgres.deleteTree(dir);
            }
        }
    }

    private int smoke(Path dir) throws Exception {
        Path binary = StampBinary.compile(dir);
        Path starts = StampBinary.startsFile(dir, "starts.txt");
        Contender.Setup setup = new Contender.Setup(binary, starts, nodes, slots, dir.resolve("contender"));
        try (Contender contender =
                peer == PeerNode.Peer.DBSCHEDULER ? new DbSchedulerContender(poll) : new QuartzContender(poll)) {
            long t0 = System.nanoTime();
            contender.start(setup);
            System.out.printf(Locale.ROOT, "%s: started in %.1f s%n", contender.name(), seconds(t0));

            Instant due = Instant.now().plus(lead).truncatedTo(ChronoUnit.MILLIS);
            List<Due> dues = new ArrayList<>();
            for (int i = 1; i <= runs; i++) {
                dues.add(new Due(String.format(Locale.ROOT, "run-%06d", i), due));
            }
            long s0 = System.nanoTime();
            contender.schedule(dues);
            double scheduling = seconds(s0);
            System.out.printf(
                    Locale.ROOT,
                    "scheduled %d runs in %.2f s (%.0f/s), due in %.1f s%n",
                    runs,
                    scheduling,
                    runs / scheduling,
                    Duration.between(Instant.now(), due).toMillis() / 1000.0);
            if (Instant.now().isAfter(due)) {
                System.out.println("WARNING: scheduling ended after the due time: lateness includes it");
            }

            Instant deadline = due.plus(timeout);
            while (Files.readAllLines(starts).size() < runs && Instant.now().isBefore(deadline)) {
                Thread.sleep(200);
            }
            // Late duplicates (a run started twice) would come after the last first start.
            Thread.sleep(3000);
            List<ProcessHandle> processes = contender.processes();
            double cpu = processes.stream()
                            .mapToLong(p -> p.info()
                                    .totalCpuDuration()
                                    .map(Duration::toMillis)
                                    .orElse(0L))
                            .sum()
                    / 1000.0;
            System.out.printf(Locale.ROOT, "processes: %d, their CPU time so far: %.1f s%n", processes.size(), cpu);
            report(Files.readAllLines(starts));
        }
        return 0;
    }

    private void report(List<String> lines) {
        Set<String> keys = new HashSet<>();
        Samples lateness = new Samples();
        int duplicates = 0;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (String line : lines) {
            String[] f = line.split(" ", -1);
            if (!keys.add(f[0])) {
                duplicates++;
            }
            long late = Long.parseLong(f[2]) - Long.parseLong(f[1]) * 1_000_000L;
            lateness.add(late);
            first = Math.min(first, late);
            last = Math.max(last, late);
        }
        System.out.printf(
                Locale.ROOT, "starts: %d, missing: %d, duplicates: %d%n", lines.size(), runs - keys.size(), duplicates);
        if (lateness.size() > 0) {
            Samples.Summary s = lateness.summary();
            System.out.printf(
                    Locale.ROOT,
                    "lateness (start − due): min %.0f ms, p50 %.0f ms, p99 %.0f ms, max %.0f ms; "
                            + "%.0f starts/s from the first to the last%n",
                    first / 1e6,
                    s.p50Nanos() / 1e6,
                    s.p99Nanos() / 1e6,
                    s.maxNanos() / 1e6,
                    last > first ? (lines.size() - 1) * 1e9 / (last - first) : 0.0);
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    public static void main(String[] args) {
        // The peers' clients log through slf4j-simple (INFO by default) on this JVM's stderr; the report is enough.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        System.exit(new CommandLine(new PeerSmoke())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .execute(args));
    }
}
