package dev.punctual.core.job;

/** ACTIVE: has or may get a pending run. COMPLETED: its schedule has no further occurrence. DELETED: final. */
public enum JobState {
    ACTIVE, COMPLETED, DELETED
}
