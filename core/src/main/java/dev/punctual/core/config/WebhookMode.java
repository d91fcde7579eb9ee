package dev.punctual.core.config;

import java.util.Locale;

/** What this deployment lets jobs' webhooks reach ({@code punctual.webhooks}; see {@code notify.WebhookTargets}). */
public enum WebhookMode {
    /** No webhooks: a job that names one is refused (say, executors without internet egress could not post). */
    OFF,
    /** https to public addresses only (the default). */
    PUBLIC,
    /** Any http(s) address, loopback and private ones included: for a developer's machine and tests only. */
    ANY;

    public static WebhookMode parse(String s) {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
    }
}
