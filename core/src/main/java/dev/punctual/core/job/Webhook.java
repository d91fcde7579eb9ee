package dev.punctual.core.job;

import java.util.List;
import java.util.Set;

/**
 * Where a job's run outcomes are posted, and which: an HTTPS URL (checked by {@code notify.WebhookTargets}) and the
 * run states that are sent, by name ({@link #OUTCOMES}). The signing secret is not here: it lives in an item of its
 * own, read only by whoever delivers ({@link JobRepository#webhookSecret}).
 */
public record Webhook(String url, Set<String> on) {
    /**
     * The states a webhook may ask for: the run outcomes that are published, and {@code OVERDUE} (the job did not
     * meet its {@link Expectation}), in the order the API lists them.
     */
    public static final List<String> OUTCOMES =
            List.of("SUCCEEDED", "FAILED", "DEAD", "CANCELLED", "SKIPPED", "OVERDUE");

    /** What a webhook that names no states is sent: the run has failed for good, or did not run, or none succeeded. */
    public static final Set<String> DEFAULT_ON = Set.of("DEAD", "SKIPPED", "OVERDUE");

    public Webhook {
        on = on == null || on.isEmpty() ? DEFAULT_ON : Set.copyOf(on);
    }

    public boolean wants(String state) {
        return on.contains(state);
    }

    /** The states, in {@link #OUTCOMES}' order (for the item and the API). */
    public List<String> onNames() {
        return OUTCOMES.stream().filter(on::contains).toList();
    }
}
