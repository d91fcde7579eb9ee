package dev.punctual.bench.launch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A binary to launch: its short name, where it is, its sha256 (the sandbox verifies it), and how it was made. */
record Binary(String name, Path path, String sha256, String origin) {
    /** Exits 0 at once: what is measured is the launch, not the work. */
    static final String SOURCE = "int main(void) { return 0; }\n";

    static final List<String> NAMES = List.of("tiny", "static", "true");

    /**
     * {@code tiny}: {@link #SOURCE} compiled by gcc -O2 into {@code dir}; {@code static}: the same, -static;
     * {@code true}: /bin/true.
     */
    static Binary make(String name, Path dir) throws IOException, InterruptedException {
        return switch (name) {
            case "tiny" -> compile(name, dir, List.of());
            case "static" -> compile(name, dir, List.of("-static"));
            case "true" -> {
                Path p = Path.of("/bin/true").toRealPath();
                yield new Binary(name, p, sha256(p), p + " (" + Files.size(p) + " bytes)");
            }
            default -> throw new IllegalArgumentException("unknown binary " + name + "; one of " + NAMES);
        };
    }

    private static Binary compile(String name, Path dir, List<String> flags) throws IOException, InterruptedException {
        Path src = Files.writeString(dir.resolve("exit0.c"), SOURCE);
        Path out = dir.resolve(name);
        List<String> cmd = new ArrayList<>(List.of("gcc", "-O2"));
        cmd.addAll(flags);
        cmd.addAll(List.of("-o", out.toString(), src.toString()));
        Process gcc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output;
        try (InputStream in = gcc.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + output.strip());
        }
        // Readable and executable by everyone, like a binary in the executor's cache.
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwxr-xr-x"));
        return new Binary(
                name,
                out,
                sha256(out),
                "`" + String.join(" ", cmd.subList(0, cmd.size() - 3)) + "` of `" + SOURCE.strip() + "` ("
                        + Files.size(out) + " bytes)");
    }

    static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
