package dev.punctual.bench.compare;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a system's process runs under {@code --pin}: its store (Punctual's local runner with its emulators,
 * PostgreSQL) on the first CPU, its workers (executors, peer nodes, and every process they start) on the second, so
 * that neither part of a system can take the other's core. Off by default: every process shares every CPU.
 */
public enum Pin {
    STORE("0"),
    WORKERS("1");

    private static volatile boolean on;

    private final String cpu;

    Pin(String cpu) {
        this.cpu = cpu;
    }

    /** Turns pinning on for the processes started from now on; fails where there are fewer than two CPUs. */
    public static void enable() {
        if (Runtime.getRuntime().availableProcessors() < 2) {
            throw new IllegalStateException("--pin needs two CPUs; this machine gives the JVM "
                    + Runtime.getRuntime().availableProcessors());
        }
        on = true;
    }

    /** Turns pinning off again (tests). */
    static void disable() {
        on = false;
    }

    public static boolean enabled() {
        return on;
    }

    /** {@code command}, run under {@code taskset -c <cpu>} when pinning is on (its children inherit the CPU). */
    public List<String> wrap(List<String> command) {
        if (!on) {
            return command;
        }
        List<String> out = new ArrayList<>(List.of("taskset", "-c", cpu));
        out.addAll(command);
        return out;
    }

    /** How the report says it: "store on CPU 0, workers on CPU 1", or nothing when off. */
    public static String describe() {
        return on
                ? "pinned with taskset: each system's store on CPU " + STORE.cpu + ", its workers on CPU " + WORKERS.cpu
                : "";
    }
}
