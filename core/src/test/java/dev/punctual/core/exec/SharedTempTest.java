package dev.punctual.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a run's close may skip scanning a shared temp directory for what it left: only when the directory's time is
 * the one marked as its lease opened, and that time was already well before the mark (SharedTemp.Marks). The times
 * here are set on a directory of the test's own, from an instant the test chooses.
 */
class SharedTempTest {
    private final Instant opened = Instant.parse("2030-01-01T10:00:00Z");

    @TempDir
    Path dir;

    private SharedTemp.Marks markedAt(Instant dirTime) throws Exception {
        Files.setLastModifiedTime(dir, FileTime.from(dirTime));
        return new SharedTemp.Marks(opened, Map.of(dir, Files.getLastModifiedTime(dir)));
    }

    @Test
    void aDirectoryLeftAloneSinceLongBeforeTheLeaseIsNotScannedAgain() throws Exception {
        SharedTemp.Marks marks = markedAt(opened.minusSeconds(3600));
        assertThat(marks.unchanged(dir)).isTrue();
    }

    @Test
    void anEntryMadeOrRemovedSinceTheMarkMeansAScan() throws Exception {
        SharedTemp.Marks marks = markedAt(opened.minusSeconds(3600));
        Path left = Files.createFile(dir.resolve("left"));
        assertThat(marks.unchanged(dir)).as("an entry made").isFalse();
        marks = markedAt(opened.minusSeconds(3600));
        Files.delete(left);
        assertThat(marks.unchanged(dir)).as("an entry removed").isFalse();
    }

    @Test
    void aDirectoryChangedJustBeforeTheLeaseIsScannedEvenIfItsTimeStaysTheSame() throws Exception {
        // A change in the same clock tick as the one before it would leave the time as marked: not trusted.
        SharedTemp.Marks marks = markedAt(opened.minus(SharedTemp.QUIET).plusMillis(1));
        assertThat(marks.unchanged(dir)).isFalse();
    }

    @Test
    void aDirectoryNotMarkedIsScanned() {
        SharedTemp.Marks marks = new SharedTemp.Marks(opened, Map.of());
        assertThat(marks.unchanged(dir)).isFalse();
    }

    @Test
    void theEntriesAUidOwnsAtTheTopOfADirectoryAreFound() throws Exception {
        Path other = Files.createDirectory(dir.resolve("other"));
        Path mine = Files.createFile(other.resolve("mine"));
        int uid = (int) Files.getAttribute(mine, "unix:uid");
        assertThat(SharedTemp.ownedBy(uid, java.util.List.of(other))).containsExactly(mine);
        assertThat(SharedTemp.ownedBy(uid + 1, java.util.List.of(other))).isEmpty();
    }
}
