package dev.punctual.core.exec;

import dev.punctual.core.binary.ArtifactStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Binaries on local disk, by owner and sha256. A download goes to a temporary file, is hashed, and only a file whose
 * hash matches is moved into place (atomically) and made executable; a cached file is hashed again before each use,
 * so a corrupted cache cannot run the wrong bytes.
 *
 * <p>The cache is per owner, like the bucket: a file here was downloaded from its owner's own key, so a job can
 * only ever run bytes its owner uploaded. Keyed by sha256 alone, a warm cache would let a job whose owner never
 * uploaded those bytes run another tenant's copy.
 */
public final class BinaryCache {
    private final ArtifactStore store;
    private final Path dir;
    private final ConcurrentHashMap<String, Object> locks = new ConcurrentHashMap<>();

    public BinaryCache(ArtifactStore store, Path dir) throws IOException {
        this.store = store;
        this.dir = Files.createDirectories(dir);
    }

    /** The binary {@code sha256} of {@code owner}, from the cache or downloaded from the owner's key. */
    public Path fetch(String owner, String sha256) throws IOException {
        if (sha256 == null || !sha256.matches("[0-9a-f]{64}")) {
            throw new IOException("not a sha256: " + sha256);
        }
        String ownerKey = ArtifactStore.ownerKey(owner);
        synchronized (locks.computeIfAbsent(ownerKey + "/" + sha256, k -> new Object())) {
            Path ownerDir = Files.createDirectories(dir.resolve(ownerKey));
            Path target = ownerDir.resolve(sha256);
            if (Files.exists(target) && sha256.equals(hash(target))) {
                return target;
            }
            Path tmp = Files.createTempFile(ownerDir, sha256, ".part");
            try {
                if (!store.download(ArtifactStore.binaryKey(owner, sha256), tmp)) {
                    throw new IOException("binary " + sha256 + " has not been uploaded by the job's owner");
                }
                String actual = hash(tmp);
                if (!sha256.equals(actual)) {
                    throw new IOException("binary " + sha256 + " downloaded with sha256 " + actual);
                }
                if (!tmp.toFile().setExecutable(true, true)) {
                    throw new IOException("cannot make " + tmp + " executable");
                }
                try {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
                }
                return target;
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
    }

    static String hash(Path file) throws IOException {
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), MessageDigest.getInstance("SHA-256"))) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
            return HexFormat.of()
                    .formatHex(((DigestInputStream) in).getMessageDigest().digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
