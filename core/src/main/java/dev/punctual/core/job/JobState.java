package dev.punctual.core.job;

/**
 * ACTIVE: has or may get a pending run. PAUSED: no pending run and no run starts until resumed. COMPLETED: its
 * schedule has no further occurrence. DELETED: final.
 */
public enum JobState {
    ACTIVE,
    PAUSED,
    COMPLETED,
    DELETED
}
