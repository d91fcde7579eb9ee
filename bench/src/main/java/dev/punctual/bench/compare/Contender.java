package dev.punctual.bench.compare;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One scheduler under comparison. The runner starts it fresh for every scenario, hands it the runs to schedule,
 * watches the starts file, and stops it. Every contender runs the same {@link StampBinary} with the same
 * arguments, on the same number of run slots, so the only difference is the scheduler.
 */
public interface Contender extends AutoCloseable {
    /** The row's name, with what matters about its setup (nodes, slots, poll interval). */
    String name();

    /** Starts the system (its processes, its database) and returns once it accepts runs. */
    void start(Setup setup) throws Exception;

    /**
     * Schedules one one-shot run per due: {@code binary <key> <due epoch millis> <starts file>}
     * ({@link Due#args}). Returns once every run is durably scheduled; the caller times it (creation rate).
     */
    void schedule(List<Due> dues) throws Exception;

    /**
     * Whether {@link #schedule} puts each run in the lane its {@link Due#priority} names (Punctual's alone: the peers
     * here have no lanes).
     */
    default boolean schedulesPriority() {
        return false;
    }

    /** Whether {@link #scheduleRecurring} is supported (Punctual's alone for now). */
    default boolean schedulesRecurring() {
        return false;
    }

    /**
     * Schedules recurring jobs, each firing {@code count} times from {@code first}, {@code every} apart: {@code
     * binary <key> env <starts file>} ({@link Series#args}), where the binary reads the occurrence's due instant
     * from the environment the system gives it ({@code SCHEDULER_SCHEDULED_AT}, Punctual's).
     */
    default void scheduleRecurring(List<Series> series) throws Exception {
        throw new UnsupportedOperationException(name() + " schedules no recurring jobs here");
    }

    /** The processes that make up the system now: their CPU time and peak RSS are the system's cost. */
    List<ProcessHandle> processes();

    /** What the system counted of its own calls to its store so far, where it counts any (Punctual's metering). */
    default Optional<Usage> usage() {
        return Optional.empty();
    }

    /** The measured scenario starts now: what {@link #notes} reports is what happens from here. */
    default void beginMeasuring() throws Exception {}

    /** What the system says of the measured scenario besides the table's columns, as Markdown lines. */
    default List<String> notes() throws Exception {
        return List.of();
    }

    /** Stops every process {@link #start} started and removes what it wrote; safe to call twice. */
    @Override
    void close() throws Exception;

    /**
     * What every contender gets: the binary, the file its runs append to, {@code nodes} × {@code slotsPerNode} run
     * slots, and a private directory for the contender's own state.
     */
    record Setup(Path binary, Path startsFile, int nodes, int slotsPerNode, Path workDir) {
        public int slots() {
            return nodes * slotsPerNode;
        }
    }

    /**
     * One run to schedule: its key (unique in a scenario), the instant it is due, and its lane ({@code high},
     * {@code normal}, {@code low}; null: the system's default, as for every scenario but the priority one).
     */
    record Due(String key, Instant at, String priority) {
        public Due(String key, Instant at) {
            this(key, at, null);
        }

        /** The binary's arguments for this run. */
        public List<String> args(Path startsFile) {
            return List.of(key, Long.toString(at.toEpochMilli()), startsFile.toString());
        }
    }

    /** A recurring job of a scenario: its key, its first occurrence, the interval and how many it fires. */
    record Series(String key, Instant first, Duration every, int count) {
        /** The binary's arguments: it keys each start by this key and the due instant it is given. */
        public List<String> args(Path startsFile) {
            return List.of(key, "env", startsFile.toString());
        }

        /** How the binary keys the start of the occurrence due at {@code at}. */
        public String key(Instant at) {
            return key + "@" + at.toEpochMilli();
        }
    }
}
