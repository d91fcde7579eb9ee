package dev.punctual.core.dispatch;

import dev.punctual.core.job.Job;
import dev.punctual.core.run.Run;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;

/** One job's work in a dispatch, and what it knows of the job. */
final class Chain {
    final String jobId;
    /** Index entries of other states to attend to, then SCHEDULED runs to send, earliest first. */
    final List<Run> attend = new ArrayList<>();

    final PriorityQueue<Run> work = new PriorityQueue<>(Comparator.comparing(Run::scheduledAt));
    /** The job as read strongly before this chain wrote it (null: not read; empty: not found). */
    Optional<Job> known;
    /** The job as this chain's own last write left it: the next occurrence needs no read. */
    Job moved;
    /** The first occurrence its catch-up policy keeps, once computed. */
    final Map<String, Instant> keptFrom = new HashMap<>();

    Chain(String jobId) {
        this.jobId = jobId;
    }
}
