package dev.punctual.core.time;

import java.time.Instant;

/** A window to watch: a success must finish after {@code since} and no later than {@code deadline}. */
public record Window(Instant since, Instant deadline) {}
