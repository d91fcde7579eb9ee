package dev.punctual.core.run;

import java.util.Set;

/**
 * SCHEDULED → QUEUED → RUNNING → SUCCEEDED, or RUNNING → FAILED → (claimed again) RUNNING … → DEAD when attempts
 * are exhausted; SCHEDULED/QUEUED/FAILED → CANCELLED when the job is deleted. A claim may also start from SCHEDULED:
 * the sweeper sends a message before it marks the run QUEUED, and the executor may receive it in between.
 * SKIPPED: never started, by the job's policy (an overlapping run under {@code overlap: forbid}, or a missed
 * occurrence left out by its {@code catchUp}); its error says why.
 */
public enum RunState {
    SCHEDULED,
    QUEUED,
    RUNNING,
    SUCCEEDED,
    FAILED,
    DEAD,
    CANCELLED,
    SKIPPED;

    public static final Set<RunState> CLAIMABLE = Set.of(SCHEDULED, QUEUED, FAILED);
    public static final Set<RunState> TERMINAL = Set.of(SUCCEEDED, DEAD, CANCELLED, SKIPPED);

    public boolean terminal() {
        return TERMINAL.contains(this);
    }
}
