package dev.punctual.core.plan;

import dev.punctual.core.firing.Jitter;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import java.time.Instant;
import java.util.random.RandomGenerator;

/**
 * Makes the SCHEDULED run of one occurrence of a job's schedule: its id from the occurrence, its due time the
 * occurrence plus the job's jitter. Every place that turns an occurrence into a run (create, the dispatcher's next
 * occurrence and catch-up, resume, update) goes through here, so jitter applies the same everywhere.
 */
public final class RunPlanner {
    private final RandomGenerator random;

    public RunPlanner(RandomGenerator random) {
        this.random = random;
    }

    public Run plan(Job job, Instant occurrence, Instant now) {
        Jitter jitter = job.firing().jitter();
        Instant due = jitter == null ? occurrence : jitter.apply(job.id(), occurrence, random);
        return Run.scheduled(
                job.id(), RunIds.forOccurrence(occurrence), job.owner(), occurrence, due, job.maxAttempts(), now);
    }
}
