package dev.punctual.core.binary;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.s3.presigner.model.PresignedPutObjectRequest;

/**
 * The S3 bucket: binaries under {@code binaries/<owner-key>/sha256/<hex>} and run logs under
 * {@code logs/<job>/<run>/attempt-<n>.log}.
 *
 * <p>Binaries are content-addressed per owner, not across owners: were the key the sha256 alone, a tenant who only
 * knew another tenant's sha256 could register it, find it {@code uploaded} at once and run those bytes without ever
 * having had them. Under the owner's own prefix an object exists only if that owner uploaded it (through a
 * presigned PUT that signs the sha256, so S3 itself checks the bytes).
 */
public final class ArtifactStore {
    private final S3Client s3;
    private final S3Presigner presigner;
    private final String bucket;

    public ArtifactStore(S3Client s3, S3Presigner presigner, String bucket) {
        this.s3 = s3;
        this.presigner = presigner;
        this.bucket = bucket;
    }

    /** Where the binary {@code sha256Hex} of {@code owner} is stored. */
    public static String binaryKey(String owner, String sha256Hex) {
        return "binaries/" + ownerKey(owner) + "/sha256/" + sha256Hex;
    }

    /**
     * The owner's path segment: the hex SHA-256 of the owner string. Owners are issuer|subject pairs or IAM ARNs,
     * full of characters a key should not carry ({@code /}, {@code :}, {@code |}) and of any length; the hash is
     * fixed-length, and different owners cannot collide into one prefix.
     */
    public static String ownerKey(String owner) {
        if (owner == null || owner.isEmpty()) {
            throw new IllegalArgumentException("a binary needs an owner");
        }
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(owner.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String logKey(String jobId, String runId, int attempt) {
        return "logs/" + jobId + "/" + runId + "/attempt-" + attempt + ".log";
    }

    /** A presigned PUT that signs the body's checksum and length: S3 rejects any other body. */
    public PresignedUpload presignUpload(String owner, String sha256Hex, long size, Duration ttl) {
        String checksum =
                java.util.Base64.getEncoder().encodeToString(HexFormat.of().parseHex(sha256Hex));
        PresignedPutObjectRequest p = presigner.presignPutObject(r -> r.signatureDuration(ttl)
                .putObjectRequest(o -> o.bucket(bucket)
                        .key(binaryKey(owner, sha256Hex))
                        .contentLength(size)
                        .checksumSHA256(checksum)));
        Map<String, String> headers = new LinkedHashMap<>();
        p.signedHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("host")) {
                headers.put(name, String.join(",", values));
            }
        });
        return new PresignedUpload(p.url().toString(), headers, p.expiration());
    }

    public record PresignedUpload(String url, Map<String, String> headers, Instant expiresAt) {}

    /** The stored object's size, or empty when nothing is there yet. */
    public Optional<Long> size(String key) {
        try {
            return Optional.of(s3.headObject(h -> h.bucket(bucket).key(key)).contentLength());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    public void download(String key, Path target) throws IOException {
        try (InputStream in = s3.getObject(g -> g.bucket(bucket).key(key))) {
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    public void putLog(String key, Path file) {
        s3.putObject(
                p -> p.bucket(bucket).key(key).contentType("text/plain; charset=utf-8"), RequestBody.fromFile(file));
    }

    /**
     * A stored log as text. A log holds whatever bytes the binary wrote, cut at the cap possibly inside a multi-byte
     * character, so it is decoded leniently: a malformed sequence becomes U+FFFD. (The SDK's own
     * {@code asString} decodes strictly and throws on such bytes.)
     */
    public Optional<String> readText(String key) {
        try {
            return Optional.of(new String(
                    s3.getObjectAsBytes(g -> g.bucket(bucket).key(key)).asByteArray(), StandardCharsets.UTF_8));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
    }

    /** Names of the stored log objects of one run, in attempt order. */
    public List<String> logKeys(String jobId, String runId) {
        String prefix = "logs/" + jobId + "/" + runId + "/";
        return s3.listObjectsV2Paginator(l -> l.bucket(bucket).prefix(prefix)).contents().stream()
                .map(o -> o.key())
                .sorted()
                .toList();
    }
}
