package dev.punctual.core.dispatch;

import dev.punctual.core.firing.Priority;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Run;
import dev.punctual.core.store.DispatchStore;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The jobs of a dispatch's chains, read strongly: beforehand, a hundred a call, or by a chain itself where that read
 * failed; and what a run's message takes from its job as read. A job as read is null where its read failed (not
 * read), empty where it was not found.
 */
final class JobReads {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final DispatchStore store;

    JobReads(DispatchStore store) {
        this.store = store;
    }

    /** The job of {@code run}, read strongly; null if the read failed (its run is then sent without a hint). */
    Optional<Job> readQuietly(Run run) {
        try {
            return store.job(run.jobId());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reading job " + run.jobId() + " failed; its run is sent without a hint", e);
            return null;
        }
    }

    /**
     * The jobs of {@code ids}, read strongly, a hundred a call, several calls at once; a job whose read failed is
     * left out (its chain reads it itself).
     */
    Map<String, Optional<Job>> readJobs(ExecutorService pool, List<String> ids) {
        List<Future<Map<String, Job>>> parts = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += DispatchStore.MAX_JOBS_READ) {
            List<String> part = ids.subList(from, Math.min(ids.size(), from + DispatchStore.MAX_JOBS_READ));
            parts.add(pool.submit(() -> store.jobs(part)));
        }
        Map<String, Optional<Job>> read = new HashMap<>();
        for (int i = 0; i < parts.size(); i++) {
            List<String> part = ids.subList(
                    i * DispatchStore.MAX_JOBS_READ, Math.min(ids.size(), (i + 1) * DispatchStore.MAX_JOBS_READ));
            try {
                Map<String, Job> found = parts.get(i).get();
                part.forEach(id -> read.put(id, Optional.ofNullable(found.get(id))));
            } catch (ExecutionException e) {
                LOG.log(
                        Level.WARNING,
                        "reading " + part.size() + " jobs failed; each is read on its own",
                        e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return read;
    }

    /** The hint of an active job's run (null: not read, not active, or its runs must not overlap). */
    static RunMessage.Hint hint(Optional<Job> job, Run run) {
        if (job == null) {
            return null;
        }
        return job.filter(j -> j.state() == JobState.ACTIVE && j.id().equals(run.jobId()))
                .map(j -> RunMessage.Hint.of(j.firing()))
                .orElse(null);
    }

    /** The lane of {@code run}: its own (a trigger's or backfill's), else its job's, else normal (job not read). */
    static Priority lane(Optional<Job> job, Run run) {
        Priority jobs = job == null
                ? Priority.NORMAL
                : job.map(j -> j.firing().priority()).orElse(Priority.NORMAL);
        return run.overrides().priorityOr(jobs);
    }
}
