package dev.punctual.core.error;

/** One invalid field of a request: its JSON path and what is wrong with it. */
public record FieldError(String field, String message) {}
