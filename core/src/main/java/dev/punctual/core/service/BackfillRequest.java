package dev.punctual.core.service;

/** The body of {@code POST /v1/jobs/{id}/backfill}: the occurrences of the job's schedule from {@code from} to
 * {@code to} (both ISO-8601 instants, inclusive, {@code to} not in the future) get a run each. */
public record BackfillRequest(String from, String to) {}
