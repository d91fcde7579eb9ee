package dev.punctual.bench.launch;

import dev.punctual.bench.FixedThreads.Trial;
import java.io.IOException;
import java.util.List;

/** One way of launching a binary, measured from start to exit (and cleanup, where the path has one). */
interface LaunchPath {
    /** The row's name. */
    String name();

    /** What one run does, for the report. */
    String description();

    /** Why this path cannot be measured here, or null when it can. */
    default String skipReason() {
        return null;
    }

    /** The steps a run records besides its total, in the order they happen; each gets a row of its own. */
    default List<String> steps() {
        return List.of();
    }

    /** The trial worker {@code worker} (0-based) runs: launch {@code binary}, wait for it, check it exited 0. */
    Trial trial(int worker, Binary binary) throws IOException;
}
