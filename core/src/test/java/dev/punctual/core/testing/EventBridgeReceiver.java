package dev.punctual.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP endpoint that answers EventBridge's {@code PutEvents} (AWS JSON 1.1) as the service does, for tests: no
 * EventBridge emulator is available here (none on Maven Central, no Docker for LocalStack). The real SDK client calls
 * it, so what is checked is what the SDK sends. It can refuse entries ({@code ThrottlingException} in the result, as
 * the service does under load) or whole calls (HTTP 500), to test retries.
 */
public final class EventBridgeReceiver implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final List<JsonNode> accepted = new CopyOnWriteArrayList<>();
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger entriesToRefuse = new AtomicInteger();
    private final AtomicInteger callsToFail = new AtomicInteger();

    public EventBridgeReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.start();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The entries accepted so far, each as sent ({@code Source}, {@code DetailType}, {@code Detail}, …). */
    public List<JsonNode> accepted() {
        return List.copyOf(accepted);
    }

    /** The {@code Detail} of each accepted entry, parsed. */
    public List<JsonNode> details() {
        return accepted.stream()
                .map(e -> {
                    try {
                        return JSON.readTree(e.get("Detail").asText());
                    } catch (IOException x) {
                        throw new UncheckedIOException(x);
                    }
                })
                .toList();
    }

    /** How many PutEvents calls came (failed ones included). */
    public int calls() {
        return calls.get();
    }

    /** The next {@code n} entries are refused, one by one, with ThrottlingException. */
    public void refuseEntries(int n) {
        entriesToRefuse.set(n);
    }

    /** The next {@code n} calls fail with HTTP 500. */
    public void failCalls(int n) {
        callsToFail.set(n);
    }

    private void handle(HttpExchange x) throws IOException {
        calls.incrementAndGet();
        byte[] body = x.getRequestBody().readAllBytes();
        String target = x.getRequestHeaders().getFirst("X-Amz-Target");
        if (!"AWSEvents.PutEvents".equals(target)) {
            respond(x, 400, "{\"__type\":\"UnknownOperationException\",\"message\":\"" + target + "\"}");
            return;
        }
        if (callsToFail.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            respond(x, 500, "{\"__type\":\"InternalException\",\"message\":\"injected\"}");
            return;
        }
        JsonNode request = JSON.readTree(body);
        ObjectNode response = JSON.createObjectNode();
        ArrayNode results = response.putArray("Entries");
        int failed = 0;
        for (JsonNode entry : request.get("Entries")) {
            ObjectNode result = results.addObject();
            if (entriesToRefuse.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                result.put("ErrorCode", "ThrottlingException");
                result.put("ErrorMessage", "injected");
                failed++;
            } else {
                accepted.add(entry);
                result.put("EventId", UUID.randomUUID().toString());
            }
        }
        response.put("FailedEntryCount", failed);
        respond(x, 200, response.toString());
    }

    private static void respond(HttpExchange x, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.1");
        x.sendResponseHeaders(status, bytes.length);
        x.getResponseBody().write(bytes);
        x.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
