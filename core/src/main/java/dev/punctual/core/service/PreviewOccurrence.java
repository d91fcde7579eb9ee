package dev.punctual.core.service;

/**
 * One occurrence of a preview: the instant ({@code at}, UTC), the wall-clock time in the zone it was computed in
 * ({@code local}, ISO with offset and zone) and, at a DST transition, why it falls there ({@code dst}:
 * {@code gap-shifted}, {@code overlap-first}, {@code overlap-second}; null otherwise).
 */
public record PreviewOccurrence(String at, String local, String dst) {}
