package dev.punctual.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time and peak memory of a system's processes, read from {@code /proc}. CPU counts every live process of each
 * tree (the roots and their descendants) with the children each has already waited for ({@code cutime} and
 * {@code cstime}): a finished run's binary is counted once, in its parent, and a live process once, by itself.
 */
public final class ProcessCost {
    /** Linux reports these times in clock ticks; USER_HZ is 100 on every architecture it runs on here. */
    private static final double TICKS_PER_SECOND = 100.0;

    private ProcessCost() {}

    /** Seconds of CPU the trees rooted at {@code roots} have used so far. */
    public static double cpuSeconds(List<ProcessHandle> roots) {
        return trees(roots).mapToLong(ProcessCost::ticks).sum() / TICKS_PER_SECOND;
    }

    /** CPU seconds by kind of process (the runner, an executor, a node, the database), each tree summed. */
    public static Map<String, Double> cpuByKind(List<ProcessHandle> roots) {
        Map<String, Double> out = new TreeMap<>();
        for (ProcessHandle r : roots) {
            out.merge(kind(r), cpuSeconds(List.of(r)), Double::sum);
        }
        return out;
    }

    /** What a process is, from its command line. */
    static String kind(ProcessHandle p) {
        String cmd = p.info().commandLine().orElse("");
        if (cmd.contains("local/target")) {
            return "local runner (API, sweeper, emulators)";
        }
        if (cmd.contains("executor/target")) {
            return "executors";
        }
        if (cmd.contains("PeerNode")) {
            return "nodes";
        }
        if (cmd.contains("postgres")) {
            return "PostgreSQL";
        }
        return p.info().command().orElse("pid " + p.pid());
    }

    /** The sum of each live process's peak resident set (VmHWM), in MiB: the memory the system needed at most. */
    public static double peakRssMib(List<ProcessHandle> roots) {
        return trees(roots).mapToLong(ProcessCost::peakKib).sum() / 1024.0;
    }

    private static Stream<ProcessHandle> trees(List<ProcessHandle> roots) {
        return roots.stream()
                .filter(ProcessHandle::isAlive)
                .flatMap(r -> Stream.concat(Stream.of(r), r.descendants()))
                .distinct();
    }

    /** utime + stime + cutime + cstime (fields 14–17 of /proc/pid/stat, after the parenthesised name). */
    static long ticks(ProcessHandle p) {
        return read(p, "stat")
                .map(stat -> {
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    // f[0] is field 3 (state): field n is f[n - 3].
                    return Long.parseLong(f[11])
                            + Long.parseLong(f[12])
                            + Long.parseLong(f[13])
                            + Long.parseLong(f[14]);
                })
                .orElse(0L);
    }

    static long peakKib(ProcessHandle p) {
        return read(p, "status")
                .flatMap(s -> s.lines().filter(l -> l.startsWith("VmHWM:")).findFirst())
                .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
                .orElse(0L);
    }

    /** The file's text, or empty when the process has gone meanwhile. */
    private static Optional<String> read(ProcessHandle p, String file) {
        try {
            return Optional.of(Files.readString(Path.of("/proc", Long.toString(p.pid()), file)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
