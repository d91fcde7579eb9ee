package dev.punctual.api.function;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;

/** Binaries through the API as a client uploads them: register, then PUT to the presigned URL. */
final class ApiBinaries {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private ApiBinaries() {}

    /** A small unique script, registered and uploaded by the default test user; returns its binary id. */
    static String uploaded(String name) throws Exception {
        return uploaded(Gateway.DEFAULT_USER, name);
    }

    /** The same, as {@code user} (see {@link Gateway#USER}). */
    static String uploaded(String user, String name) throws Exception {
        byte[] body = ("#!/bin/sh\necho " + name + " " + System.nanoTime() + "\n").getBytes(StandardCharsets.UTF_8);
        JsonPath b = register(user, name, body);
        assertThat(put(b, body)).isEqualTo(200);
        return b.getString("id");
    }

    static JsonPath register(String name, byte[] body) throws Exception {
        return register(Gateway.DEFAULT_USER, name, body);
    }

    private static JsonPath register(String user, String name, byte[] body) throws Exception {
        String sha =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        return given().header(Gateway.USER, user)
                .contentType(ContentType.JSON)
                .body(Map.of("name", name, "sha256", sha, "size", body.length))
                .post("/v1/binaries")
                .then()
                .statusCode(201)
                .body("sha256", equalTo(sha))
                .extract()
                .jsonPath();
    }

    /** PUTs the body with every signed header but Content-Length (the HTTP client sets that itself). */
    static int put(JsonPath binary, byte[] body) throws Exception {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(binary.getString("uploadUrl")))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body));
        Map<String, String> headers = binary.getMap("uploadHeaders");
        headers.forEach((k, v) -> {
            if (!k.equalsIgnoreCase("content-length")) {
                req.header(k, v);
            }
        });
        return HTTP.send(req.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
