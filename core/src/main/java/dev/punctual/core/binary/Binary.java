package dev.punctual.core.binary;

import java.time.Instant;

/** A user's binary: metadata here, content in S3 under a key derived from its owner and its sha256. */
public record Binary(String id, String owner, String name, String sha256, long size, Instant createdAt) {}
