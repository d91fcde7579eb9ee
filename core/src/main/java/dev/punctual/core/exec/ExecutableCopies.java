package dev.punctual.core.exec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The executable copies of a sandbox's binaries ({@link Sandbox#executable}): made once per binary from the
 * executor's cache and shared by its runs. Root owns each, nobody can change it, and its bytes were hashed as they
 * were copied: the bytes executed are the bytes checked. Each is at a random path in a directory no run can list,
 * so a run cannot find another tenant's binary to read.
 */
final class ExecutableCopies {
    /** The executable copies of this sandbox's binaries, by owner and sha256 ({@link #of}). */
    private final Map<String, Path> executables = new ConcurrentHashMap<>();

    private final Map<String, Object> copying = new ConcurrentHashMap<>();
    /** The sandbox's root, which a run cannot list, where each copy gets a directory of its own. */
    private final Path root;

    ExecutableCopies(Path root) {
        this.root = root;
    }

    /** The executable copy of the binary {@code sha256} of {@code owner} ({@link Sandbox#executable}). */
    Path of(String owner, String sha256, Sandbox.Cached cached) throws IOException {
        String key = owner + "/" + sha256;
        Path made = executables.get(key);
        if (made != null && Files.isExecutable(made)) {
            return made;
        }
        synchronized (copying.computeIfAbsent(key, k -> new Object())) {
            made = executables.get(key);
            if (made != null && Files.isExecutable(made)) {
                return made;
            }
            // The directory's name is random and the sandbox's root cannot be listed by a run: the path is not
            // one a run of another tenant can guess to read these bytes.
            Path execDir = Files.createTempDirectory(root, "exec-");
            Files.setPosixFilePermissions(execDir, PosixFilePermissions.fromString("rwx--x--x"));
            Path binary = execDir.resolve("binary");
            try {
                copyVerified(cached.fetch(), binary, sha256);
                Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("r-xr-xr-x"));
            } catch (IOException | RuntimeException e) {
                Sandbox.deleteTree(execDir);
                throw e;
            }
            executables.put(key, binary);
            return binary;
        }
    }

    /** Removes the executable copies (the executor is stopping: no run of this sandbox is left). */
    void removeAll() {
        executables.values().forEach(b -> Sandbox.deleteTree(b.getParent()));
        executables.clear();
    }

    private static void copyVerified(Path from, Path to, String sha256) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        // No process may start while the copy is open for writing (see ProcessRunner.EXEC_WRITES).
        ProcessRunner.EXEC_WRITES.writeLock().lock();
        try (InputStream in = new DigestInputStream(Files.newInputStream(from), digest);
                OutputStream out = Files.newOutputStream(to, StandardOpenOption.CREATE_NEW)) {
            in.transferTo(out);
        } finally {
            ProcessRunner.EXEC_WRITES.writeLock().unlock();
        }
        String actual = HexFormat.of().formatHex(digest.digest());
        if (!actual.equals(sha256)) {
            Files.deleteIfExists(to);
            throw new IOException("binary " + sha256 + " read from the cache as " + actual);
        }
    }
}
