package dev.punctual.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.punctual.core.error.FieldError;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * An RFC 9457 problem detail. {@code field} names the first offending field; {@code errors} lists them all.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(
        name = "Problem",
        description = "An RFC 9457 problem detail: field names the first offending field, errors lists them all")
public record Problem(
        ProblemType type, String title, int status, String detail, String field, List<FieldError> errors) {
    public static final String MEDIA_TYPE = "application/problem+json";

    /** Never without a detail (the document requires one): the title, when whatever failed said nothing more. */
    public Problem {
        detail = detail == null || detail.isBlank() ? title : detail;
    }
}
