package dev.punctual.core.service;

import java.util.List;

/** One page of a listing; {@code nextCursor} is null on the last page. */
public record Page<T>(List<T> items, String nextCursor) {}
