package dev.punctual.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;

/** Turns every failure into {@code application/problem+json}; nothing a client sent can produce a bare 500. */
public class ProblemMappers {
    private static final Logger LOG = Logger.getLogger(ProblemMappers.class);
    /** Seconds a client should wait after a 503 caused by AWS throttling or an outage. */
    static final int RETRY_AFTER_SECONDS = 2;

    @ServerExceptionMapper
    public Response validation(ValidationException e) {
        return problem(e);
    }

    /** The problem a rejection of the request's fields is answered with (also used outside the mappers). */
    static Response problem(ValidationException e) {
        List<FieldError> errors = e.errors();
        Status s = status(e.kind());
        return problem(
                s.code(),
                s.type(),
                s.title(),
                errors.stream().map(f -> f.field() + ": " + f.message()).collect(Collectors.joining("; ")),
                errors.isEmpty() ? null : errors.get(0).field(),
                errors);
    }

    /** An HTTP status with its problem type and title. */
    record Status(int code, ProblemType type, String title) {}

    /** The one place where the core's kinds of rejection become HTTP statuses. */
    static Status status(Rejection kind) {
        return switch (kind) {
            case MALFORMED -> new Status(400, ProblemType.INVALID_REQUEST, "Bad request");
            case INVALID -> new Status(422, ProblemType.INVALID_REQUEST, "Unprocessable request");
            case TOO_LARGE -> new Status(413, ProblemType.TOO_LARGE, "Content too large");
            case CONFLICT -> new Status(409, ProblemType.CONFLICT, "Conflict");
            case PRECONDITION_FAILED -> new Status(412, ProblemType.PRECONDITION_FAILED, "Precondition failed");
            case PRECONDITION_REQUIRED -> new Status(428, ProblemType.INVALID_REQUEST, "Precondition required");
        };
    }

    @ServerExceptionMapper
    public Response notFound(dev.punctual.core.error.NotFoundException e) {
        return problem(404, ProblemType.NOT_FOUND, "Not found", e.getMessage(), null, null);
    }

    @ServerExceptionMapper
    public Response conflict(dev.punctual.core.error.ConflictException e) {
        return problem(409, ProblemType.CONFLICT, "Conflict", e.getMessage(), null, null);
    }

    @ServerExceptionMapper
    public Response unknownField(UnrecognizedPropertyException e) {
        String field = path(e);
        return problem(
                400,
                ProblemType.INVALID_REQUEST,
                "Bad request",
                field + ": unknown field",
                field,
                List.of(new FieldError(field, "unknown field")));
    }

    /** More specific than Quarkus's own mapper for this type, so ours answers: a wrong type for a field. */
    @ServerExceptionMapper
    public Response wrongType(MismatchedInputException e) {
        return badJson(e);
    }

    @ServerExceptionMapper
    public Response badJson(JsonProcessingException e) {
        if (e instanceof UnrecognizedPropertyException u) {
            return unknownField(u);
        }
        String field = e instanceof JsonMappingException m && !m.getPath().isEmpty() ? path(m) : "body";
        String message =
                e instanceof JsonMappingException && !(e instanceof InvalidTypeIdException) && !"body".equals(field)
                        ? "has the wrong type"
                        : "is not valid JSON";
        if (e instanceof StreamReadException r
                && r.getProcessor() != null
                && String.valueOf(r.getOriginalMessage()).startsWith("Duplicate field")) {
            // Strict duplicate detection fails in the parser, which knows where it was.
            field = path(r.getProcessor().getParsingContext());
            message = "appears more than once";
        }
        return problem(
                400,
                ProblemType.INVALID_REQUEST,
                "Bad request",
                field + ": " + message,
                field,
                List.of(new FieldError(field, message)));
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        if (e.getCause() instanceof JsonProcessingException json) {
            return badJson(json);
        }
        int status = e.getResponse().getStatus();
        if (status == 400) {
            return problem(
                    400,
                    ProblemType.INVALID_REQUEST,
                    "Bad request",
                    "body: " + e.getMessage(),
                    "body",
                    List.of(new FieldError("body", "could not be read: " + e.getMessage())));
        }
        if (e instanceof NotSupportedException) {
            return JsonBodies.unsupported();
        }
        ProblemType type = switch (e) {
            case NotFoundException n -> ProblemType.NOT_FOUND;
            case NotAllowedException n -> ProblemType.METHOD_NOT_ALLOWED;
            case NotAcceptableException n -> ProblemType.NOT_ACCEPTABLE;
            default -> ProblemType.HTTP_STATUS;
        };
        return problem(status, type, e.getResponse().getStatusInfo().getReasonPhrase(), e.getMessage(), null, null);
    }

    /** AWS throttling or a 5xx from AWS: the client may retry; nothing partial was written (writes are atomic). */
    @ServerExceptionMapper
    public Response aws(SdkException e) {
        boolean retryable = e.retryable()
                || (e instanceof AwsServiceException s && (s.isThrottlingException() || s.statusCode() >= 500));
        if (!retryable) {
            return unexpected(e);
        }
        LOG.warn("AWS unavailable or throttling", e);
        return Response.fromResponse(problem(
                        503,
                        ProblemType.UNAVAILABLE,
                        "Service unavailable",
                        "storage is busy or unavailable; retry later",
                        null,
                        null))
                .header("Retry-After", RETRY_AFTER_SECONDS)
                .build();
    }

    @ServerExceptionMapper
    public Response unexpected(RuntimeException e) {
        LOG.error("unexpected error", e);
        return problem(500, ProblemType.INTERNAL, "Internal error", "an unexpected error occurred", null, null);
    }

    private static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                if (!sb.isEmpty()) {
                    sb.append('.');
                }
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.isEmpty() ? "body" : sb.toString();
    }

    /** A parser's position as a field path ({@code schedule.dates[0]}), as {@link #path(JsonMappingException)}. */
    private static String path(JsonStreamContext leaf) {
        Deque<JsonStreamContext> chain = new ArrayDeque<>();
        for (JsonStreamContext c = leaf; c != null && !c.inRoot(); c = c.getParent()) {
            chain.addFirst(c);
        }
        StringBuilder sb = new StringBuilder();
        for (JsonStreamContext c : chain) {
            if (c.inObject() && c.getCurrentName() != null) {
                if (!sb.isEmpty()) {
                    sb.append('.');
                }
                sb.append(c.getCurrentName());
            } else if (c.inArray()) {
                sb.append('[').append(Math.max(0, c.getCurrentIndex())).append(']');
            }
        }
        return sb.isEmpty() ? "body" : sb.toString();
    }

    static Response problem(
            int status, ProblemType type, String title, String detail, String field, List<FieldError> errors) {
        return Response.status(status)
                .type(Problem.MEDIA_TYPE)
                .entity(new Problem(type, title, status, detail, field, errors))
                .build();
    }
}
