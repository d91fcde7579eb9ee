package dev.punctual.core.firing;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Jitter as users write it: {@code {"mode": "random" | "hashed", "max": "PT30S"}}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JitterSpec(String mode, String max) {}
