package dev.punctual.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local runner with {@code --auth}, end to end: tokens printed by the launcher's {@code token} command (what
 * {@code bin/local-token} runs), two users who each see only their own, and requests without a valid token or to a
 * non-loopback {@code Host} refused; the {@code punctual} command and the dashboard (in a browser) signed in as a user.
 */
class LocalAuthIT {
    @AutoClose
    private static LocalSystem system;

    private static Path key;
    private static String alice;
    private static String bob;
    private static Path dir;

    @BeforeAll
    static void start(@TempDir Path tmp) throws Exception {
        dir = tmp;
        key = tmp.resolve("keys").resolve("local-auth-key.jwk");
        system = new LocalSystem(List.of(), List.of("--auth", "--auth-key", key.toString()));
        alice = token("alice", key);
        bob = token("bob", key);
    }

    /** Runs {@code punctual-local token SUBJECT --auth-key KEY} and returns what it printed. */
    static String token(String subject, Path keyFile) throws Exception {
        List<String> cmd = new ArrayList<>(LocalSystem.java(List.of()));
        cmd.addAll(List.of("token", subject, "--auth-key", keyFile.toString()));
        Process p = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).isZero();
        assertThat(out).matches("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+");
        return out;
    }

    @Test
    void theKeyIsMadeOnceAndReadableOnlyByItsUser() throws Exception {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
                .isEqualTo("rw-------");
        String before = Files.readString(key);
        token("carol", key);
        assertThat(Files.readString(key)).isEqualTo(before);
    }

    @Test
    void twoUsersEachSeeOnlyTheirOwnEndToEnd() throws Exception {
        system.bearer = alice;
        String binaryId = system.upload(LocalSystem.binary(Files.createDirectories(dir.resolve("bin"))));
        JsonNode job = system.post(
                "/v1/jobs",
                Map.of(
                        "name",
                        "alices",
                        "binaryId",
                        binaryId,
                        "env",
                        Map.of("GREETING", "for alice only"),
                        "schedule",
                        Map.of("type", "now")),
                201);
        String id = job.get("id").asText();
        assertThat(job.get("owner").asText()).isEqualTo("punctual-local|sub:alice");
        JsonNode run = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> system.get("/v1/jobs/" + id + "/runs?future=true")
                                .get("items")
                                .get(0),
                        r -> "SUCCEEDED".equals(r.get("state").asText()));
        String runId = run.get("runId").asText();
        assertThat(system.text("/v1/jobs/" + id + "/runs/" + runId + "/log")).contains("hello from run " + runId);

        system.bearer = bob;
        assertThat(system.get("/v1/jobs").get("items")).isEmpty();
        system.get("/v1/jobs/" + id, 404);
        system.get("/v1/jobs/" + id + "/runs", 404);
        system.get("/v1/jobs/" + id + "/runs/" + runId + "/log", 404);
        system.get("/v1/binaries/" + binaryId, 404);
        system.post("/v1/jobs/" + id + "/trigger", Map.of(), 404);
        assertThat(system.delete("/v1/jobs/" + id)).isEqualTo(404);
        system.post("/v1/jobs", Map.of("name", "thief", "binaryId", binaryId, "schedule", Map.of("type", "now")), 422);

        system.bearer = alice;
        assertThat(system.get("/v1/jobs/" + id).get("state").asText()).isEqualTo("COMPLETED");
        assertThat(system.get("/v1/jobs").get("items")).hasSize(1);
    }

    @Test
    void requestsWithoutAValidTokenAreUnauthenticated() throws Exception {
        Path otherKey = dir.resolve("other.jwk");
        String forged = token("alice", otherKey);
        for (String bearer :
                new String[] {null, "not-a-jwt", forged, alice.substring(0, alice.length() - 4) + "AAAA"}) {
            HttpRequest.Builder req =
                    HttpRequest.newBuilder(URI.create(system.api + "/v1/jobs")).GET();
            if (bearer != null) {
                req.header("Authorization", "Bearer " + bearer);
            }
            JsonNode problem = system.send(req, 401);
            assertThat(problem.get("status").asInt()).isEqualTo(401);
            assertThat(problem.get("type").asText()).isEqualTo("urn:punctual:problem:unauthenticated");
        }
    }

    @Test
    void onlyLoopbackHostNamesAreAnswered() throws Exception {
        URI api = URI.create(system.api);
        assertThat(statusLine(api, "evil.example:" + api.getPort())).contains(" 403 ");
        assertThat(statusLine(api, "127.0.0.1:" + api.getPort())).contains(" 401 ");
        assertThat(statusLine(api, "localhost")).contains(" 401 ");
    }

    /** The {@code punctual} command, in this JVM, with {@code env} as its environment. */
    private static CliIT.Result punctual(Map<String, String> env, String... args) {
        return CliIT.punctual(env, dir.resolve("home"), args);
    }

    @Test
    void thePunctualCommandSendsTheTokenItIsGivenFromTheEnvironmentOrAProfile() throws Exception {
        // dave and erin: users of their own, so that the counts of alice's and bob's jobs above are not disturbed.
        String dave = token("dave", key);
        Map<String, String> asDave = Map.of("PUNCTUAL_API_URL", system.api, "PUNCTUAL_TOKEN", dave);
        Path bin = LocalSystem.binary(Files.createDirectories(dir.resolve("dave-bin")));
        CliIT.Result pushed = punctual(asDave, "binary", "push", bin.toString(), "--no-progress", "-o", "json");
        assertThat(pushed.code()).as(pushed.err()).isZero();
        String binaryId = LocalSystem.JSON.readTree(pushed.out()).get("id").asText();
        Path job = Files.writeString(dir.resolve("dave.json"), """
                {"name": "daves", "binaryId": "%s", "schedule": {"type": "cron", "expression": "0 3 * * *"}}
                """.formatted(binaryId));
        CliIT.Result applied = punctual(asDave, "job", "apply", "-f", job.toString());
        assertThat(applied.code()).as(applied.err()).isZero();

        CliIT.Result listed = punctual(asDave, "job", "list", "-o", "json");
        assertThat(LocalSystem.JSON.readTree(listed.out()).findValuesAsText("name"))
                .containsExactly("daves");

        // The token from a profile file instead of the environment.
        Path config = Files.writeString(
                dir.resolve("profiles.properties"), "work.api-url=" + system.api + "\nwork.token=" + dave + "\n");
        CliIT.Result fromProfile = punctual(
                Map.of("PUNCTUAL_CONFIG", config.toString(), "PUNCTUAL_PROFILE", "work"), "job", "list", "-o", "json");
        assertThat(fromProfile.code()).as(fromProfile.err()).isZero();
        assertThat(LocalSystem.JSON.readTree(fromProfile.out()).findValuesAsText("name"))
                .containsExactly("daves");

        // No token: not authenticated (exit 5), the API's reason shown. Another user's token: not dave's jobs.
        CliIT.Result anonymous = punctual(Map.of("PUNCTUAL_API_URL", system.api), "job", "list");
        assertThat(anonymous.code()).isEqualTo(5);
        assertThat(anonymous.err()).contains("bearer token");
        CliIT.Result asAlice =
                punctual(Map.of("PUNCTUAL_API_URL", system.api, "PUNCTUAL_TOKEN", alice), "job", "get", "daves");
        assertThat(asAlice.code()).isEqualTo(3);
    }

    @Test
    void theDashboardAsksForATokenAndShowsOnlyItsUsersJobs() throws Exception {
        String erin = token("erin", key);
        String before = system.bearer;
        try {
            system.bearer = erin;
            String binaryId = system.upload(LocalSystem.binary(Files.createDirectories(dir.resolve("erin-bin"))));
            system.post(
                    "/v1/jobs",
                    Map.of(
                            "name",
                            "erin-job",
                            "binaryId",
                            binaryId,
                            "schedule",
                            Map.of("type", "cron", "expression", "0 4 * * *")),
                    201);
        } finally {
            system.bearer = before;
        }
        Browser.run("signin.test.mjs", 4, Map.of("PUNCTUAL_URL", system.api, "PUNCTUAL_TOKEN", erin));
    }

    /** A raw HTTP/1.1 request with the given Host header (Java's HTTP client does not let tests set Host). */
    private static String statusLine(URI api, String host) throws Exception {
        try (Socket s = new Socket(api.getHost(), api.getPort())) {
            OutputStream out = s.getOutputStream();
            out.write(("GET /v1/jobs HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        }
    }
}
