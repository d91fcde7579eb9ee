package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * Punctual's HTTP API as the command uses it: JSON in and out, the bearer token on every request, and an answer
 * that is not a success turned into an {@link ApiException} carrying the problem (RFC 9457) the API sent.
 */
final class ApiClient implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    private final String base;
    private final String token;
    /** Which setting the URL came from (a flag, a variable, a profile), named when the API cannot be reached. */
    private final String source;

    private final HttpClient http;

    ApiClient(String base, String token, String source) {
        this.base = base;
        this.token = token;
        this.source = source;
        this.http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /**
     * Stops the HTTP client's threads. Left open, the JVM's exit waited about 0.3 s for its selector thread: more
     * than the rest of a {@code job list} against the local runner.
     */
    @Override
    public void close() {
        http.shutdownNow();
    }

    /** An answer: its status, headers and body as text. */
    record Answer(int status, Map<String, List<String>> headers, String body) {
        JsonNode json() {
            try {
                return body.isEmpty() ? JSON.nullNode() : JSON.readTree(body);
            } catch (IOException e) {
                throw new ApiException(status, null, "the API answered something that is not JSON: " + e.getMessage());
            }
        }

        Optional<String> header(String name) {
            return headers.entrySet().stream()
                    .filter(h ->
                            h.getKey().equalsIgnoreCase(name) && !h.getValue().isEmpty())
                    .map(h -> h.getValue().getFirst())
                    .findFirst();
        }
    }

    JsonNode get(String path) {
        return send(request(path).GET(), Map.of()).json();
    }

    Answer getAnswer(String path, Duration timeout) {
        return send(request(path).timeout(timeout).GET(), Map.of());
    }

    JsonNode post(String path, Object body) {
        return post(path, body, Map.of()).json();
    }

    Answer post(String path, Object body, Map<String, String> headers) {
        return send(request(path).POST(json(body)), headers);
    }

    Answer put(String path, Object body, Map<String, String> headers) {
        return send(request(path).PUT(json(body)), headers);
    }

    void delete(String path) {
        send(request(path).DELETE(), Map.of());
    }

    /** Sends a request the API answered with a URL of its own (a presigned upload): no token, no JSON. */
    int sendRaw(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            throw unreachable(request.uri(), e, "");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(0, null, "interrupted");
        }
    }

    /** Every item of a listing ({@code {items, nextCursor}}), following its cursor. */
    static List<JsonNode> all(ApiClient api, String path) {
        List<JsonNode> items = new ArrayList<>();
        String cursor = null;
        do {
            String page = cursor == null ? path : path + (path.contains("?") ? "&" : "?") + "cursor=" + segment(cursor);
            JsonNode answer = api.get(page);
            answer.path("items").forEach(items::add);
            cursor = answer.hasNonNull("nextCursor") ? answer.get("nextCursor").asText() : null;
        } while (cursor != null);
        return items;
    }

    /** {@code path?k=v&…} with the values URL-encoded; null values are left out. */
    static String query(String path, Map<String, ?> params) {
        StringJoiner q = new StringJoiner("&");
        params.forEach((k, v) -> {
            if (v != null) {
                q.add(k + "=" + URLEncoder.encode(String.valueOf(v), StandardCharsets.UTF_8));
            }
        });
        return q.length() == 0 ? path : path + "?" + q;
    }

    static Map<String, Object> params(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    /** A JSON object of the key-value pairs whose value is not null. */
    static Map<String, Object> body(Object... kv) {
        Map<String, Object> m = params(kv);
        m.values().removeIf(java.util.Objects::isNull);
        return m;
    }

    static String segment(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .header("Accept", "application/json, application/problem+json, text/plain");
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    private static HttpRequest.BodyPublisher json(Object body) {
        try {
            return HttpRequest.BodyPublishers.ofString(body == null ? "" : JSON.writeValueAsString(body));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write the request body as JSON", e);
        }
    }

    private Answer send(HttpRequest.Builder b, Map<String, String> headers) {
        headers.forEach(b::header);
        HttpRequest req = b.header("Content-Type", "application/json").build();
        HttpResponse<String> r;
        try {
            r = http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw unreachable(req.uri(), e, " (the API's URL, from " + source + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(0, null, "interrupted");
        }
        Answer a = new Answer(r.statusCode(), r.headers().map(), r.body());
        if (a.status() >= 400) {
            throw ApiException.of(a);
        }
        return a;
    }

    private static ApiException unreachable(URI uri, IOException e, String whence) {
        String why = e instanceof ConnectException
                ? "nothing answers there (is the API running? bin/run-local starts one)"
                : e instanceof HttpTimeoutException ? "it did not answer in time" : e.toString();
        return new ApiException(
                0, null, "cannot reach " + uri.getScheme() + "://" + uri.getAuthority() + whence + ": " + why);
    }
}
