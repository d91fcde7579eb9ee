package dev.punctual.core.binary;

import java.time.Instant;

/**
 * A user's binary: metadata here, content in S3 under a key derived from its owner and its sha256.
 * {@code uploadedAt} is when the content was first found in place with its registered size (null: not yet).
 */
public record Binary(
        String id, String owner, String name, String sha256, long size, Instant createdAt, Instant uploadedAt) {
    public Binary(String id, String owner, String name, String sha256, long size, Instant createdAt) {
        this(id, owner, name, sha256, size, createdAt, null);
    }
}
