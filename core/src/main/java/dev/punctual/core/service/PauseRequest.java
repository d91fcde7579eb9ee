package dev.punctual.core.service;

/**
 * The optional body of {@code POST /v1/jobs/{id}/pause}: {@code note}, why (at most {@value #MAX_NOTE} characters),
 * shown on the job as {@code pauseNote} until it is resumed.
 */
public record PauseRequest(String note) {
    public static final int MAX_NOTE = 500;
}
