package dev.punctual.bench.compare;

import dev.punctual.bench.Gcc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The workload every contender runs: a static binary that appends {@code <key> <due millis> <start nanos>} to the
 * file it is given, stamped by its own clock the moment it starts, and exits 0. Given {@code env} for its due
 * millis (a recurring job's occurrence, whose arguments are the same every time), it reads the due instant from
 * {@code SCHEDULER_SCHEDULED_AT} and keys the line {@code <key>@<due millis>}. One {@code write} of a short line
 * to a file opened with {@code O_APPEND} is atomic, so concurrent runs never interleave.
 */
public final class StampBinary {
    static final String SOURCE = """
            #define _GNU_SOURCE
            #include <fcntl.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <time.h>
            #include <unistd.h>
            /* An ISO-8601 UTC instant (2026-11-25T01:02:03Z, 2026-11-25T01:02:03.456Z) in epoch millis, or -1. */
            static long long iso_millis(const char *s) {
                struct tm tm = {0};
                int ms = 0, digits = 0;
                if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                                 &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) return -1;
                tm.tm_year -= 1900;
                tm.tm_mon -= 1;
                for (const char *p = s + 19; *p == '.' || (*p >= '0' && *p <= '9'); p++) {
                    if (*p != '.' && digits < 3) { ms = ms * 10 + (*p - '0'); digits++; }
                }
                while (digits++ < 3) ms *= 10;
                return (long long) timegm(&tm) * 1000 + ms;
            }
            int main(int argc, char **argv) {
                struct timespec t;
                clock_gettime(CLOCK_REALTIME, &t);
                if (argc < 4) return 2;
                char line[512];
                int n;
                if (strcmp(argv[2], "env") == 0) {
                    /* A recurring job's occurrence: keyed by its job and the due instant its scheduler gives it. */
                    long long due = iso_millis(getenv("SCHEDULER_SCHEDULED_AT"));
                    if (due < 0) return 7;
                    n = snprintf(line, sizeof line, "%s@%lld %lld %lld\\n", argv[1], due, due,
                                 (long long) t.tv_sec * 1000000000LL + t.tv_nsec);
                } else {
                    n = snprintf(line, sizeof line, "%s %s %lld\\n", argv[1], argv[2],
                                 (long long) t.tv_sec * 1000000000LL + t.tv_nsec);
                }
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
