package dev.punctual.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.punctual.core.error.FieldError;
import java.util.List;

/**
 * An RFC 9457 problem detail. {@code field} names the first offending field; {@code errors} lists them all.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(
        ProblemType type, String title, int status, String detail, String field, List<FieldError> errors) {
    public static final String MEDIA_TYPE = "application/problem+json";
}
