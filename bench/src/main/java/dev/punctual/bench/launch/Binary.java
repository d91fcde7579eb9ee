package dev.punctual.bench.launch;

import dev.punctual.bench.Gcc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

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
        Path out = Gcc.compile(SOURCE, dir, name, flags);
        return new Binary(
                name,
                out,
                sha256(out),
                "`" + String.join(" ", Gcc.command(flags)) + "` of `" + SOURCE.strip() + "` (" + Files.size(out)
                        + " bytes)");
    }

    static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
