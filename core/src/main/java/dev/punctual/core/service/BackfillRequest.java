package dev.punctual.core.service;

/** The body of {@code POST /v1/jobs/{id}/backfill}: the occurrences of the job's schedule from {@code from} to
 * {@code to} (both ISO-8601 instants, inclusive, {@code to} not in the future) get a run each, in the lane {@code priority} (high, normal, low; absent: the job's). */
public record BackfillRequest(String from, String to, String priority) {
    /** In the job's lane. */
    public BackfillRequest(String from, String to) {
        this(from, to, null);
    }
}
