package dev.punctual.core.dispatch;

import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Run;
import dev.punctual.core.store.DispatchStore;
import java.time.Instant;
import java.util.Optional;

/** A move of {@code job} from {@code current} to {@code next}, and the job as it leaves it. */
record Succession(Run current, Job job, Optional<Run> next, Instant now) {
    DispatchStore.Outcome write(DispatchStore store) {
        return store.advance(job, current, next, now);
    }

    Job jobAfter() {
        return job.toBuilder()
                .state(next.isPresent() ? job.state() : JobState.COMPLETED)
                .pendingRunId(next.map(Run::runId).orElse(null))
                .nextRunAt(next.map(Run::scheduledAt).orElse(null))
                .updatedAt(now)
                .build();
    }
}
