package dev.punctual.core.exec;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The temp directories every user may write, where a run without a filesystem of its own can leave files outside
 * its directory; what a uid owns at their top, to be counted in its disk and removed at its end (a later run may
 * get the same uid).
 */
final class SharedTemp {
    /** Directories any user may write to, where a run can leave files outside its own directory. */
    static final List<Path> DIRS = Stream.of("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
            .map(Path::of)
            .filter(Files::isDirectory)
            .toList();

    /**
     * How long before a run's lease a shared directory's last change must be for {@link Marks#unchanged} to trust
     * its unchanged time: the kernel stamps a directory's change from a clock that moves in ticks (a few
     * milliseconds), so a change made in the same tick as the one before it can leave the time as it was.
     */
    static final Duration QUIET = Duration.ofSeconds(1);

    private SharedTemp() {}

    /**
     * The shared directories' modification times as a run's lease is opened. A directory's time moves whenever an
     * entry is made, removed or renamed at its top (a file, a directory, a link, a socket), whoever makes it; a
     * uid cannot give itself an entry otherwise (chown needs a capability runs do not have). So a directory whose
     * time is the one marked, and was already well before the mark, holds no entry the run could have made: its
     * scan at the run's end can be skipped. One that has changed, by this run or another, is scanned.
     */
    record Marks(Instant at, Map<Path, FileTime> times) {
        static Marks now(Instant at) {
            Map<Path, FileTime> times = new HashMap<>();
            for (Path dir : DIRS) {
                FileTime t = timeOf(dir);
                if (t != null) {
                    times.put(dir, t);
                }
            }
            return new Marks(at, times);
        }

        /** Whether {@code dir} has had no entry made, removed or renamed since these marks. */
        boolean unchanged(Path dir) {
            FileTime marked = times.get(dir);
            return marked != null && marked.toInstant().isBefore(at.minus(QUIET)) && marked.equals(timeOf(dir));
        }
    }

    /** The entries {@code uid} owns at the top of the shared temp directories. */
    static List<Path> ownedBy(int uid) {
        return ownedBy(uid, DIRS);
    }

    /** The entries {@code uid} owns at the top of {@code dirs}. */
    static List<Path> ownedBy(int uid, List<Path> dirs) {
        List<Path> out = new ArrayList<>();
        for (Path shared : dirs) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(shared)) {
                for (Path e : entries) {
                    try {
                        if ((int) Files.getAttribute(e, "unix:uid", LinkOption.NOFOLLOW_LINKS) == uid) {
                            out.add(e);
                        }
                    } catch (IOException | RuntimeException gone) {
                        // Removed meanwhile.
                    }
                }
            } catch (IOException | RuntimeException unreadable) {
                // Nothing of ours to find there.
            }
        }
        return out;
    }

    /**
     * What {@code uid} may have left in the shared directories since {@code marks} (null: since ever): the entries it
     * owns in every directory that changed since.
     */
    static List<Path> leftSince(int uid, Marks marks) {
        return ownedBy(
                uid,
                marks == null
                        ? DIRS
                        : DIRS.stream().filter(d -> !marks.unchanged(d)).toList());
    }

    /**
     * Removes what {@code uid} left in the shared temp directories (a later run may get the same uid): in those that
     * changed since {@code marks} (null: in all).
     */
    static void deleteLeftovers(int uid, Marks marks) {
        leftSince(uid, marks).forEach(Sandbox::deleteTree);
    }

    private static FileTime timeOf(Path dir) {
        try {
            return Files.getLastModifiedTime(dir, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | RuntimeException gone) {
            return null;
        }
    }
}
