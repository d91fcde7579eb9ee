package dev.punctual.core.limits;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What one run may use. A job names some of these ({@code limits} in its definition; absent fields are null); the
 * executor-wide maxima ({@code punctual.limits.*}) have every field set, cap what a job may ask for, and are what
 * a job gets for the fields it leaves out.
 *
 * <p>Enforced as rlimits, which the kernel applies per process (memory, open files, file size, CPU time) or per
 * user (processes: every run is a user of its own in the sandbox, so that one is per run), and disk by the
 * executor's watch over the run's directory ({@link RunWatch}).
 *
 * @param processes  processes and threads the run's user may have at once (RLIMIT_NPROC)
 * @param memoryMb   MiB of data (heap, anonymous mappings) per process (RLIMIT_DATA)
 * @param openFiles  open file descriptors per process (RLIMIT_NOFILE)
 * @param fileSizeMb MiB any one file written may reach (RLIMIT_FSIZE; the process gets SIGXFSZ past it); a run
 *                   gets at most its {@code diskMb}
 * @param cpuSeconds CPU seconds per process (RLIMIT_CPU; the process gets SIGXCPU at it)
 * @param diskMb     MiB the run may have on disk: its directory, and what its user owns in the shared temp dirs
 */
public record RunLimits(
        Integer processes,
        Integer memoryMb,
        Integer openFiles,
        Integer fileSizeMb,
        Integer cpuSeconds,
        Integer diskMb) {

    /** A job that names no limit. */
    public static final RunLimits NONE = new RunLimits(null, null, null, null, null, null);
    /** The executor-wide maxima unless configured. */
    public static final RunLimits DEFAULT_MAXIMA = new RunLimits(256, 2048, 1024, 1024, 3600, 1024);

    /** The JSON field names, in order, with how to read each. */
    public static final Map<String, Function<RunLimits, Integer>> FIELDS = fields();

    private static Map<String, Function<RunLimits, Integer>> fields() {
        Map<String, Function<RunLimits, Integer>> m = new LinkedHashMap<>();
        m.put("processes", RunLimits::processes);
        m.put("memoryMb", RunLimits::memoryMb);
        m.put("openFiles", RunLimits::openFiles);
        m.put("fileSizeMb", RunLimits::fileSizeMb);
        m.put("cpuSeconds", RunLimits::cpuSeconds);
        m.put("diskMb", RunLimits::diskMb);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** Every field set, as the maxima must be. */
    public boolean complete() {
        return FIELDS.values().stream().allMatch(f -> f.apply(this) != null);
    }

    /** Whether the job names no limit at all. */
    public boolean none() {
        return FIELDS.values().stream().allMatch(f -> f.apply(this) == null);
    }

    /**
     * What a run of a job with these limits gets under {@code maxima}: each field the job set, at most its maximum
     * (the API refuses more, but the executor's maxima may be lower than the API's), each field it left out the
     * maximum; and {@code fileSizeMb} at most {@code diskMb}, as no file can be larger than the disk it is on (a job
     * asking for 128 MiB of disk gets files of at most 128 MiB, not the 1024 a file size left out would give it).
     * The job's own limits, as the API shows them, stay as they were asked for.
     */
    public RunLimits within(RunLimits maxima) {
        Integer disk = min(diskMb, maxima.diskMb);
        return new RunLimits(
                min(processes, maxima.processes),
                min(memoryMb, maxima.memoryMb),
                min(openFiles, maxima.openFiles),
                Math.min(min(fileSizeMb, maxima.fileSizeMb), disk),
                min(cpuSeconds, maxima.cpuSeconds),
                disk);
    }

    /** The problems of a job's limits against {@code maxima}, as {@code field: reason} pairs, field first. */
    public List<String[]> problems(RunLimits maxima) {
        List<String[]> out = new ArrayList<>();
        FIELDS.forEach((name, f) -> {
            Integer v = f.apply(this);
            Integer max = f.apply(maxima);
            if (v == null) {
                return;
            }
            if (v < 1) {
                out.add(new String[] {name, "must be at least 1"});
            } else if (v > max) {
                out.add(new String[] {name, "must be at most " + max + " (this deployment's maximum)"});
            }
        });
        return out;
    }

    private static Integer min(Integer asked, Integer max) {
        return asked == null ? max : Integer.valueOf(Math.min(asked, max));
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        FIELDS.forEach((name, f) -> {
            Integer v = f.apply(this);
            if (v != null) {
                b.append(b.isEmpty() ? "" : ", ").append(name).append('=').append(v);
            }
        });
        return b.toString();
    }
}
