package dev.punctual.core.config;

/**
 * What the scheduler tells the outside beyond its API: its meters, its run transitions, and jobs' webhooks.
 *
 * @param emfMetrics publish the meters ({@code metrics.Meters}) as CloudWatch Embedded Metric Format lines on stdout
 *     (AWS); off by default
 * @param jsonRunEvents executors print each run transition as a JSON line on stdout ({@code RunEvent}), not as log
 *     text
 * @param webhooks where jobs' webhooks may post, or {@link WebhookMode#OFF} for none
 */
public record Publishing(boolean emfMetrics, boolean jsonRunEvents, WebhookMode webhooks) {}
