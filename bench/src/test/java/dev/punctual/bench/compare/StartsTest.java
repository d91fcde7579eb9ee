package dev.punctual.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartsTest {
    @TempDir
    Path dir;

    @Test
    void firstStartCountsLaterOnesAreDuplicatesAndUnseenKeysAreMissing() throws Exception {
        Instant due = Instant.ofEpochSecond(1_000);
        long dueNanos = due.toEpochMilli() * 1_000_000L;
        Path f = Files.writeString(
                dir.resolve("starts.txt"),
                "a 1000000 " + (dueNanos + 20_000_000) + "\n"
                        + "b 1000000 " + (dueNanos - 1_000_000) + "\n"
                        + "a 1000000 " + (dueNanos + 5_000_000) + "\n"
                        + "torn line\n");
        Starts s = Starts.read(f);
        List<Contender.Due> dues =
                List.of(new Contender.Due("a", due), new Contender.Due("b", due), new Contender.Due("c", due));

        assertThat(s.distinct()).isEqualTo(2);
        assertThat(s.duplicates()).isEqualTo(1);
        assertThat(s.malformed()).isEqualTo(1);
        assertThat(s.missing(Set.of("a", "b", "c"))).isEqualTo(1);
        // a's earliest start (5 ms late) counts, and b started 1 ms early.
        assertThat(s.lateness(dues).summary().maxNanos()).isEqualTo(5_000_000);
        assertThat(s.lateness(dues).summary().p50Nanos()).isEqualTo(-1_000_000);
        assertThat(s.early(dues)).isEqualTo(1);
    }

    @Test
    void theBinarysArgumentsAreKeyDueMillisAndTheFile() {
        Contender.Due d = new Contender.Due("k1", Instant.ofEpochMilli(1234));
        assertThat(d.args(Path.of("/tmp/s"))).containsExactly("k1", "1234", "/tmp/s");
    }
}
