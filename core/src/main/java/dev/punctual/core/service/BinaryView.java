package dev.punctual.core.service;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/**
 * A binary. On creation it carries the presigned upload (URL, headers the PUT must send, expiry); on reads it
 * tells whether the object has been uploaded.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BinaryView(
        String id,
        String name,
        String sha256,
        long size,
        String createdAt,
        Boolean uploaded,
        String uploadUrl,
        Map<String, String> uploadHeaders,
        String expiresAt) {}
