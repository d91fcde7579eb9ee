package dev.punctual.bench.compare;

import dev.punctual.bench.Samples;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the binaries wrote: one line per start, {@code <key> <due millis> <start nanos>}, each stamped by the run's own
 * clock. The first start of each key counts for lateness; any further start of it is a duplicate.
 */
public record Starts(Map<String, Long> firstStartNanos, int lines, int malformed) {

    public static Starts read(Path file) throws IOException {
        Map<String, Long> first = new HashMap<>();
        int lines = 0;
        int malformed = 0;
        for (String line : Files.readAllLines(file)) {
            lines++;
            String[] f = line.split(" ", -1);
            if (f.length != 3) {
                malformed++;
                continue;
            }
            try {
                first.merge(f[0], Long.parseLong(f[2]), Math::min);
            } catch (NumberFormatException e) {
                malformed++;
            }
        }
        return new Starts(first, lines, malformed);
    }

    public int distinct() {
        return firstStartNanos.size();
    }

    /** Starts beyond each key's first. */
    public int duplicates() {
        return lines - malformed - distinct();
    }

    /** Of the expected keys, how many never started. */
    public int missing(Set<String> expected) {
        return (int)
                expected.stream().filter(k -> !firstStartNanos.containsKey(k)).count();
    }

    /** Keys that started that nobody scheduled (should never happen). */
    public int unexpected(Set<String> expected) {
        return (int) firstStartNanos.keySet().stream()
                .filter(k -> !expected.contains(k))
                .count();
    }

    /**
     * Start minus due for every run that started, in nanoseconds; negative means it started early. The bench and
     * every system run on one machine, so one clock stamps both.
     */
    public Samples lateness(List<Contender.Due> dues) {
        Samples s = new Samples();
        for (Contender.Due d : dues) {
            Long start = firstStartNanos.get(d.key());
            if (start != null) {
                s.add(start - d.at().toEpochMilli() * 1_000_000L);
            }
        }
        return s;
    }

    /** Of the runs that started, how many started before their due instant (never acceptable). */
    public int early(List<Contender.Due> dues) {
        return (int) dues.stream()
                .filter(d -> {
                    Long start = firstStartNanos.get(d.key());
                    return start != null && start < d.at().toEpochMilli() * 1_000_000L;
                })
                .count();
    }

    /** The latest first start, in epoch nanoseconds (0 when none). */
    public long lastStartNanos() {
        return firstStartNanos.values().stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(0);
    }
}
