package dev.punctual.bench.compare;

import dev.punctual.bench.Gcc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The workload every contender runs: a static binary that appends {@code <key> <due millis> <start nanos>} to the
 * file it is given, stamped by its own clock the moment it starts, and exits 0. One {@code write} of a short line
 * to a file opened with {@code O_APPEND} is atomic, so concurrent runs never interleave.
 */
public final class StampBinary {
    static final String SOURCE = """
            #include <fcntl.h>
            #include <stdio.h>
            #include <time.h>
            #include <unistd.h>
            int main(int argc, char **argv) {
                struct timespec t;
                clock_gettime(CLOCK_REALTIME, &t);
                if (argc < 4) return 2;
                char line[512];
                int n = snprintf(line, sizeof line, "%s %s %lld\\n", argv[1], argv[2],
                                 (long long) t.tv_sec * 1000000000LL + t.tv_nsec);
                if (n <= 0 || n >= (int) sizeof line) return 3;
                int fd = open(argv[3], O_WRONLY | O_APPEND);
                if (fd < 0) return 4;
                if (write(fd, line, n) != n) return 5;
                return close(fd) == 0 ? 0 : 6;
            }
            """;

    private StampBinary() {}

    /** Compiles the binary into {@code dir} (gcc -O2 -static). */
    public static Path compile(Path dir) throws IOException, InterruptedException {
        return Gcc.compile(SOURCE, dir, "stamp", List.of("-static"));
    }

    /**
     * An empty starts file every run may append to, whatever its uid (Punctual's sandbox runs each binary as a user
     * of its own).
     */
    public static Path startsFile(Path dir, String name) throws IOException {
        Path f = dir.resolve(name);
        Files.deleteIfExists(f);
        Files.createFile(f);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        return f;
    }
}
