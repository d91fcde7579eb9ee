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

    /**
     * CPU seconds by kind of process (the runner, an executor, a node, the database), each tree summed; an executor's
     * also by part ({@link #executorParts}), under {@code executors › <part>}.
     */
    public static Map<String, Double> cpuByKind(List<ProcessHandle> roots) {
        Map<String, Double> out = new TreeMap<>();
        for (ProcessHandle r : roots) {
            String kind = kind(r);
            out.merge(kind, cpuSeconds(List.of(r)), Double::sum);
            if (kind.equals("executors") && r.isAlive()) {
                executorParts(r)
                        .forEach(
                                (part, ticks) -> out.merge(kind + " › " + part, ticks / TICKS_PER_SECOND, Double::sum));
            }
        }
        return out;
    }

    /**
     * An executor's CPU ticks by part: its JVM's threads by what they do (from their names), the threads that have
     * ended (the JVM's own count less its live threads'), and its child processes by command, each with the children
     * it has waited for (the launcher: every run it started).
     */
    static Map<String, Long> executorParts(ProcessHandle jvm) {
        Map<String, Long> parts = new TreeMap<>();
        long live = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(jvm.pid()), "task"))) {
            for (Path task : tasks.toList()) {
                Optional<String> stat = readPath(task.resolve("stat"));
                if (stat.isEmpty()) {
                    continue;
                }
                String name = stat.get()
                        .substring(stat.get().indexOf('(') + 1, stat.get().lastIndexOf(')'));
                long t = ownTicks(stat.get());
                live += t;
                parts.merge("JVM: " + threadPart(name), t, Long::sum);
            }
        } catch (IOException e) {
            return Map.of();
        }
        Optional<String> stat = read(jvm, "stat");
        long own = stat.map(ProcessCost::ownTicks).orElse(live);
        parts.merge("JVM: threads ended meanwhile", own - live, Long::sum);
        parts.merge(
                "processes the JVM started and waited for",
                stat.map(st -> ticks(jvm) - ownTicks(st)).orElse(0L),
                Long::sum);
        jvm.descendants().forEach(d -> {
            String cmd = d.info().commandLine().orElse("");
            String part = cmd.contains("punctual-sandbox")
                    ? "launcher and the runs it started"
                    : cmd.contains("punctual-supervisor") ? "supervisor shell" : "other processes";
            parts.merge(part, ticks(d), Long::sum);
        });
        return parts;
    }

    /** What a thread of the executor's JVM does, from its name (Linux keeps the first 15 characters). */
    static String threadPart(String name) {
        if (name.startsWith("ForkJoinPool")) {
            return "virtual threads (shared store calls, launch writes)";
        }
        if (name.matches("run-\\d+")) {
            return "run threads";
        }
        if (name.startsWith("receiver-") || name.startsWith("sqs-deletes")) {
            return "receives and deletes";
        }
        if (name.contains("CompilerThre")
                || name.startsWith("GC ")
                || name.startsWith("G1 ")
                || name.equals("VM Thread")) {
            return "JIT, GC and VM";
        }
        return "other threads";
    }

    /** utime + stime of a stat line (fields 14 and 15): the task's own, without children. */
    private static long ownTicks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
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
        return readPath(Path.of("/proc", Long.toString(p.pid()), file));
    }

    private static Optional<String> readPath(Path file) {
        try {
            return Optional.of(Files.readString(file));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
