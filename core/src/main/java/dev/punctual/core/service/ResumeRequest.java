package dev.punctual.core.service;

/** The optional body of {@code POST /v1/jobs/{id}/resume}: {@code catchUp} is skip (default), latest or all. */
public record ResumeRequest(String catchUp) {}
