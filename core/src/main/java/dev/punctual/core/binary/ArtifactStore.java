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
 * The S3 bucket: binaries under {@code binaries/<owner-key>/sha256/<hex>}, run logs under
 * {@code logs/<job>/<run>/attempt-<n>.log} and the chunks of a running attempt's output under
 * {@code logs/<job>/<run>/attempt-<n>/<end offset>} ({@link #chunkKey}).
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

    /** Where the chunks of a running attempt's output are shipped: one object per chunk under this prefix. */
    public static String chunkPrefix(String jobId, String runId, int attempt) {
        return "logs/" + jobId + "/" + runId + "/attempt-" + attempt + "/";
    }

    /**
     * The chunk of an attempt's output that ends at byte {@code end} (exclusive). Named by where it ends, zero-padded
     * to {@value #OFFSET_DIGITS} digits, so that key order is offset order and a listing that starts after
     * {@code chunkKey(…, n)} begins with the chunk holding byte {@code n}: a reader at any offset needs one listing,
     * not every key before it. (Named by where it starts, the chunk holding {@code n} would sort before {@code n}.)
     */
    public static String chunkKey(String jobId, String runId, int attempt, long end) {
        return chunkPrefix(jobId, runId, attempt) + offset(end);
    }

    /** Digits of a chunk's offset: up to a terabyte, far above any output cap. */
    static final int OFFSET_DIGITS = 12;

    private static String offset(long end) {
        if (end < 0 || end >= 1_000_000_000_000L) {
            throw new IllegalArgumentException("a chunk offset must have at most " + OFFSET_DIGITS + " digits: " + end);
        }
        return String.format("%0" + OFFSET_DIGITS + "d", end);
    }

    /** Bytes {@code [end - size, end)} of an attempt's output, stored under {@code key}. */
    public record LogChunk(String key, long end, long size) {
        public long start() {
            return end - size;
        }
    }

    public void putChunk(String key, byte[] bytes) {
        s3.putObject(
                p -> p.bucket(bucket).key(key).contentType("application/octet-stream"), RequestBody.fromBytes(bytes));
    }

    /**
     * The shipped chunks of an attempt that end after byte {@code from}, in offset order, at most {@code max}: one
     * listing. Keys under the prefix that are not chunk names are skipped.
     */
    public List<LogChunk> chunks(String jobId, String runId, int attempt, long from, int max) {
        String prefix = chunkPrefix(jobId, runId, attempt);
        return s3
                .listObjectsV2(l -> l.bucket(bucket)
                        .prefix(prefix)
                        .startAfter(prefix + offset(from))
                        .maxKeys(max))
                .contents()
                .stream()
                .filter(o -> o.key().length() == prefix.length() + OFFSET_DIGITS
                        && o.key().substring(prefix.length()).chars().allMatch(Character::isDigit))
                .map(o -> new LogChunk(o.key(), Long.parseLong(o.key().substring(prefix.length())), o.size()))
                .toList();
    }

    /** The bytes of {@code key} from byte {@code from} of the object on (a ranged GET when not from the start). */
    public byte[] readBytes(String key, long from) {
        return s3.getObjectAsBytes(g -> {
                    g.bucket(bucket).key(key);
                    if (from > 0) {
                        g.range("bytes=" + from + "-");
                    }
                })
                .asByteArray();
    }

    /** A stored log's bytes, or empty when it is not there. */
    public Optional<byte[]> readLog(String key) {
        try {
            return Optional.of(readBytes(key, 0));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
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

    /** Copies the object at {@code key} to {@code target}; false when there is no such object. */
    public boolean download(String key, Path target) throws IOException {
        try (InputStream in = s3.getObject(g -> g.bucket(bucket).key(key))) {
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            return true;
        } catch (NoSuchKeyException e) {
            return false;
        }
    }

    public void putLog(String key, Path file) {
        s3.putObject(
                p -> p.bucket(bucket).key(key).contentType("text/plain; charset=utf-8"), RequestBody.fromFile(file));
    }

    /** Names of the stored log objects of one run (attempts' logs and chunks), in key order. */
    public List<String> logKeys(String jobId, String runId) {
        String prefix = "logs/" + jobId + "/" + runId + "/";
        return s3.listObjectsV2Paginator(l -> l.bucket(bucket).prefix(prefix)).contents().stream()
                .map(o -> o.key())
                .sorted()
                .toList();
    }
}
