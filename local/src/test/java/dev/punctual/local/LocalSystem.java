package dev.punctual.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged local launcher ({@code target/quarkus-app/quarkus-run.jar}) running as its own process, and a
 * small HTTP client for its API. Waits for the launcher's ready line instead of sleeping.
 */
final class LocalSystem implements AutoCloseable {
    private static final Pattern READY = Pattern.compile("ready: API (http://\\S+)");
    static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final List<String> output = new ArrayList<>();
    final String api;
    private final HttpClient http = HttpClient.newHttpClient();

    /** Sent as {@code Authorization: Bearer} on every API request when set (a runner started with --auth). */
    volatile String bearer;

    LocalSystem(String... jvmProperties) throws Exception {
        this(List.of(jvmProperties), List.of());
    }

    LocalSystem(List<String> jvmProperties, List<String> launcherArgs) throws Exception {
        List<String> cmd = java(jvmProperties);
        cmd.addAll(List.of("--port", "0", "--dynamodb-port", "0", "--sqs-port", "0", "--s3-port", "0"));
        cmd.addAll(launcherArgs);
        process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream()))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (output) {
                        output.add(line);
                    }
                    Matcher m = READY.matcher(line);
                    if (m.find()) {
                        ready.complete(m.group(1));
                    }
                }
                ready.completeExceptionally(new IllegalStateException("launcher exited before ready:\n" + output()));
            } catch (IOException e) {
                ready.completeExceptionally(e);
            }
        });
        api = ready.get(90, TimeUnit.SECONDS);
    }

    /** {@code java [props] -jar <the launcher>}: what bin/run-local runs. */
    static List<String> java(List<String> jvmProperties) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx512m"));
        cmd.addAll(jvmProperties);
        cmd.addAll(List.of("-jar", System.getProperty("punctual.local.app")));
        return cmd;
    }

    String output() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    JsonNode post(String path, Object body, int expectStatus) throws Exception {
        return send(
                request(path)
                        .header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))),
                expectStatus);
    }

    JsonNode get(String path) throws Exception {
        return get(path, 200);
    }

    JsonNode get(String path, int expectStatus) throws Exception {
        return send(request(path).GET(), expectStatus);
    }

    /** A request to the API, with the bearer token if one is set. */
    HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(api + path));
        String token = bearer;
        return token == null ? b : b.header("Authorization", "Bearer " + token);
    }

    String text(String path) throws Exception {
        HttpResponse<String> r = http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new AssertionError(path + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    int delete(String path) throws Exception {
        return http.send(request(path).DELETE().build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    JsonNode send(HttpRequest.Builder req, int expectStatus) throws Exception {
        HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != expectStatus) {
            throw new AssertionError("expected " + expectStatus + " but got " + r.statusCode() + ": " + r.body());
        }
        return r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body());
    }

    /** Registers the file as a binary and uploads it through the presigned URL; returns the binary id. */
    String upload(Path file) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        String sha =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        JsonNode b = post(
                "/v1/binaries",
                Map.of("name", file.getFileName().toString(), "sha256", sha, "size", bytes.length),
                201);
        HttpRequest.Builder put = HttpRequest.newBuilder(
                        URI.create(b.get("uploadUrl").asText()))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes));
        b.get("uploadHeaders").fields().forEachRemaining(h -> {
            if (!h.getKey().equalsIgnoreCase("content-length")) {
                put.header(h.getKey(), h.getValue().asText());
            }
        });
        int status =
                http.send(put.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status != 200) {
            throw new AssertionError("upload failed with " + status);
        }
        return b.get("id").asText();
    }

    /** A tiny native binary compiled with gcc, or (without gcc) a script with a shebang doing the same. */
    static Path binary(Path dir) throws Exception {
        Path exe = dir.resolve("hello");
        if (onPath("gcc")) {
            Path src = dir.resolve("hello.c");
            try (var in = LocalSystem.class.getResourceAsStream("/hello.c")) {
                Files.copy(in, src);
            }
            Process gcc = new ProcessBuilder("gcc", "-O2", "-o", exe.toString(), src.toString())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (gcc.waitFor() != 0) {
                throw new IllegalStateException("gcc failed: " + out);
            }
        } else {
            Files.writeString(
                    exe,
                    "#!/bin/sh\necho \"hello from run $SCHEDULER_RUN_ID attempt $SCHEDULER_ATTEMPT\"\n"
                            + "echo 'stderr is captured too' >&2\nexit ${1:-0}\n");
            exe.toFile().setExecutable(true);
        }
        return exe;
    }

    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    static Duration between(JsonNode run, String from, String to) {
        return Duration.between(
                java.time.Instant.parse(run.get(from).asText()),
                java.time.Instant.parse(run.get(to).asText()));
    }
}
