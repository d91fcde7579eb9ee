package dev.punctual.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Compiles a benchmark's C workload. */
public final class Gcc {
    private Gcc() {}

    /**
     * {@code gcc -O2 <flags>} of {@code source} into {@code dir/name}, readable and executable by everyone (like a
     * binary in the executor's cache, and so sandboxed runs of other uids can start it).
     */
    public static Path compile(String source, Path dir, String name, List<String> flags)
            throws IOException, InterruptedException {
        Path src = Files.writeString(dir.resolve(name + ".c"), source);
        Path out = dir.resolve(name);
        List<String> cmd = new ArrayList<>(command(flags));
        cmd.addAll(List.of("-o", out.toString(), src.toString()));
        Process gcc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output;
        try (InputStream in = gcc.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + output.strip());
        }
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwxr-xr-x"));
        return out;
    }

    /** The compiler and its options, as a report names them. */
    public static List<String> command(List<String> flags) {
        List<String> cmd = new ArrayList<>(List.of("gcc", "-O2"));
        cmd.addAll(flags);
        return cmd;
    }
}
