package dev.punctual.core.service;

/**
 * What a create answered, and whether it is the answer to an earlier request with the same {@code Idempotency-Key}
 * ({@link IdempotentCreation}): then nothing new was created.
 */
public record Created<T>(T value, boolean replayed) {}
