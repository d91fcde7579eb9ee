package dev.punctual.core.service;

/** The body of {@code POST /v1/binaries}: what the client is about to upload. */
public record BinaryRequest(String name, String sha256, Long size) {}
