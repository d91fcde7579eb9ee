package dev.punctual.api;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.List;

/**
 * Every {@code type} a problem+json answer of this API can carry: a closed set, so that a client can switch on it and
 * the OpenAPI document lists each one. {@link Problem} takes nothing else.
 */
public enum ProblemType {
    INVALID_REQUEST(
            "invalid-request",
            "the request is malformed (400), invalid (422) or lacks If-Match (428); field and errors name what",
            400,
            422,
            428),
    UNAUTHENTICATED("unauthenticated", "no identity this API accepts (WWW-Authenticate: Bearer)", 401),
    HOST_NOT_ALLOWED("host-not-allowed", "the local runner answers only requests to a loopback name", 403),
    NOT_FOUND("not-found", "no such resource, or not the caller's", 404),
    METHOD_NOT_ALLOWED("method-not-allowed", "the path exists, the method does not", 405),
    NOT_ACCEPTABLE("not-acceptable", "the Accept header excludes what the endpoint produces", 406),
    CONFLICT("conflict", "the resource's state does not allow this now (e.g. the job is paused or deleted)", 409),
    PRECONDITION_FAILED("precondition-failed", "If-Match names a version that is no longer current", 412),
    TOO_LARGE("too-large", "the body, or part of it, is larger than allowed", 413),
    URI_TOO_LONG("uri-too-long", "the URI is longer than 8192 characters", 414),
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", "a body that is not application/json", 415),
    QUOTA_EXCEEDED("quota-exceeded", "over one of the tenant's quotas (field names it); see Retry-After", 429),
    HEADERS_TOO_LARGE("headers-too-large", "the request's headers are too large", 431),
    INTERNAL("internal", "an unexpected error; nothing the client sent explains it", 500),
    UNAVAILABLE("unavailable", "storage is busy or unavailable; retry after Retry-After seconds", 503),
    /** RFC 9457's type for "nothing more than the status says": a status JAX-RS raised that none above covers. */
    HTTP_STATUS(null, "no more than the HTTP status says");

    public static final String PREFIX = "urn:punctual:problem:";

    private final String uri;
    private final String meaning;
    private final List<Integer> statuses;

    ProblemType(String name, String meaning, int... statuses) {
        this.uri = name == null ? "about:blank" : PREFIX + name;
        this.meaning = meaning;
        this.statuses = Arrays.stream(statuses).boxed().toList();
    }

    /** The type as it is written in a problem ({@code urn:punctual:problem:<name>}). */
    @JsonValue
    public String uri() {
        return uri;
    }

    /** What the type means, for the document. */
    public String meaning() {
        return meaning;
    }

    /** The statuses a problem of this type is answered with; empty for {@link #HTTP_STATUS} (any). */
    public List<Integer> statuses() {
        return statuses;
    }
}
