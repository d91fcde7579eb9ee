package dev.punctual.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recurring scenario expects each occurrence under the key its binary writes: the job's key and the due instant
 * the scheduler hands the binary in {@code SCHEDULER_SCHEDULED_AT}.
 */
class RecurringScenarioTest {
    @TempDir
    Path dir;

    @Test
    void everyOccurrenceOfEveryJobIsOneDueKeyedByJobAndInstantSpreadOverTheSeconds() {
        // 4 jobs every 3 s for 7 s: first due at +0, +1, +2, +0 s; those at +0 fire at 0, 3, 6, the others twice.
        Scenario sc = Scenario.recurring(4, 3, 7);
        Instant t0 = Instant.parse("2026-11-25T01:00:00Z");
        assertThat(sc.created()).isEqualTo(4);
        assertThat(sc.series(t0))
                .extracting(Contender.Series::first, Contender.Series::count)
                .containsExactly(tuple(t0, 3), tuple(t0.plusSeconds(1), 2), tuple(t0.plusSeconds(2), 2), tuple(t0, 3));
        assertThat(sc.runs()).isEqualTo(10);
        assertThat(sc.dues(t0))
                .extracting(Contender.Due::key)
                .contains("r0@" + t0.toEpochMilli(), "r0@" + t0.plusSeconds(6).toEpochMilli())
                .contains("r2@" + t0.plusSeconds(5).toEpochMilli())
                .doesNotContain("r2@" + t0.plusSeconds(8).toEpochMilli())
                .doesNotHaveDuplicates()
                .hasSize(10);
    }

    @Test
    void theBinaryKeysAStartByItsJobAndTheDueInstantFromItsEnvironment() throws Exception {
        assumeTrue(onPath("gcc"), "no gcc here: the benchmark's binary cannot be built");
        Path binary = StampBinary.compile(dir);
        Path starts = StampBinary.startsFile(dir, "starts.txt");
        Contender.Series r =
                new Contender.Series("r7", Instant.parse("2026-11-25T01:02:03Z"), Duration.ofSeconds(10), 2);
        for (String due : List.of("2026-11-25T01:02:03Z", "2026-11-25T01:02:13.250Z")) {
            List<String> cmd = new ArrayList<>(List.of(binary.toString()));
            cmd.addAll(r.args(starts));
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().put("SCHEDULER_SCHEDULED_AT", due);
            Process p = pb.start();
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
        }
        Starts seen = Starts.read(starts);
        assertThat(seen.malformed()).isZero();
        assertThat(seen.firstStartNanos())
                .containsOnlyKeys(
                        r.key(Instant.parse("2026-11-25T01:02:03Z")), r.key(Instant.parse("2026-11-25T01:02:13.250Z")));
    }

    private static boolean onPath(String command) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, command))) {
                return true;
            }
        }
        return false;
    }
}
