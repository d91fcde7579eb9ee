package dev.punctual.bench.compare.punctual;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.punctual.bench.compare.Contender.Due;
import dev.punctual.bench.compare.Contender.Series;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/** The calls the benchmark makes to Punctual's HTTP API, as any client would (the local runner: no token). */
final class Api {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String base;
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    Api(String base) {
        this.base = base;
    }

    /** Registers the binary, uploads it to the presigned URL with the headers it signs, and returns its id. */
    String uploadBinary(String name, Path file) throws IOException, InterruptedException {
        byte[] bytes = Files.readAllBytes(file);
        ObjectNode body = JSON.createObjectNode()
                .put("name", name)
                .put("sha256", sha256(bytes))
                .put("size", bytes.length);
        JsonNode created = post("/v1/binaries", body, 201);
        HttpRequest.Builder put = HttpRequest.newBuilder(
                        URI.create(created.get("uploadUrl").asText()))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes))
                .header("content-type", "application/octet-stream");
        created.get("uploadHeaders").properties().forEach(h -> {
            if (!h.getKey().equalsIgnoreCase("content-type") && !h.getKey().equalsIgnoreCase("content-length")) {
                put.header(h.getKey(), h.getValue().asText());
            }
        });
        HttpResponse<String> r = http.send(put.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("upload of " + file + ": " + r.statusCode() + " " + r.body());
        }
        return created.get("id").asText();
    }

    /**
     * One {@code once} job per due, created {@code perRequest} at a time through {@code POST /v1/jobs/batch} (1: one
     * {@code POST /v1/jobs} each), {@code concurrency} requests in flight; returns when every one is created.
     */
    void createOnce(String binaryId, List<Due> dues, Path startsFile, int concurrency, int perRequest)
            throws Exception {
        create(dues.stream().map(d -> once(binaryId, d, startsFile)).toList(), concurrency, perRequest);
    }

    /** One {@code interval} job per series, created as {@link #createOnce} creates one-shots. */
    void createRecurring(String binaryId, List<Series> series, Path startsFile, int concurrency, int perRequest)
            throws Exception {
        create(series.stream().map(r -> interval(binaryId, r, startsFile)).toList(), concurrency, perRequest);
    }

    private void create(List<ObjectNode> jobs, int concurrency, int perRequest) throws Exception {
        Semaphore inFlight = new Semaphore(concurrency);
        List<List<ObjectNode>> requests = new ArrayList<>();
        for (int from = 0; from < jobs.size(); from += perRequest) {
            requests.add(jobs.subList(from, Math.min(jobs.size(), from + perRequest)));
        }
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<JsonNode>> created = requests.stream()
                    .map(batch -> pool.submit(() -> {
                        inFlight.acquire();
                        try {
                            if (perRequest == 1) {
                                return post("/v1/jobs", batch.getFirst(), 201);
                            }
                            ObjectNode body = JSON.createObjectNode();
                            body.putArray("jobs").addAll(batch);
                            return post("/v1/jobs/batch", body, 201);
                        } finally {
                            inFlight.release();
                        }
                    }))
                    .toList();
            for (Future<JsonNode> f : created) {
                f.get();
            }
        }
    }

    private static ObjectNode once(String binaryId, Due d, Path startsFile) {
        ObjectNode body = JSON.createObjectNode().put("name", d.key()).put("binaryId", binaryId);
        d.args(startsFile).forEach(body.putArray("args")::add);
        body.putObject("schedule").put("type", "once").put("at", d.at().toString());
        if (d.priority() != null) {
            body.put("priority", d.priority());
        }
        return body;
    }

    private static ObjectNode interval(String binaryId, Series r, Path startsFile) {
        ObjectNode body = JSON.createObjectNode().put("name", r.key()).put("binaryId", binaryId);
        r.args(startsFile).forEach(body.putArray("args")::add);
        body.putObject("schedule")
                .put("type", "interval")
                .put("every", r.every().toString())
                .put("start", r.first().toString())
                // Inclusive: the last occurrence.
                .put(
                        "end",
                        r.first().plus(r.every().multipliedBy(r.count() - 1)).toString());
        return body;
    }

    private JsonNode post(String path, JsonNode body, int expected) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + path))
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .header("content-type", "application/json")
                .build();
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != expected) {
            throw new IOException("POST " + path + ": " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
