package dev.punctual.core.firing;

import java.util.Locale;

/**
 * What happens when a run of a job is about to start while an earlier run of the same job is still RUNNING (under a
 * live lease). Decided by the executor at the claim, in the claim's own transaction, so two runs cannot both pass.
 */
public enum Overlap {
    /** Both run (the default). */
    ALLOW,
    /** The new run does not start: it ends SKIPPED, with the running run named in its error. */
    FORBID,
    /** The new run waits, re-checking every few seconds, and starts once the running one has finished. */
    QUEUE;

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
