package dev.punctual.core.service;

import java.util.List;

/**
 * A job's webhook as a client sends it: {@code url} (https), {@code secret} (16 to 256 characters, the key its posts
 * are signed with; write-only: on {@code PUT}, absent keeps the current one) and {@code on} (the run states posted;
 * absent: DEAD and SKIPPED).
 */
public record WebhookRequest(String url, String secret, List<String> on) {}
