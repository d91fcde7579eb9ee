package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobView;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log holds whatever bytes the binary wrote: bytes that are not UTF-8, or a character cut by the log cap, still
 * read as text (each malformed sequence as U+FFFD), never as an error.
 */
class LogBytesTest {
    private static final ScheduleSpec NOW = ScheduleSpec.now();
    private static final int CAP = 16;

    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    @Test
    void invalidUtf8AndACharacterCutByTheCapReadAsTextWithReplacementCharacters() {
        Punctual p = Fixture.stack(Fixture.realTimeSettings().logCapBytes(CAP).build(), Clock.systemUTC());
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        // Octal escapes: /bin/sh may be dash, whose printf has no \x.
        JobView invalid = create(p, "printf 'a\\377\\376b\\n'");
        // 15 ASCII bytes, then "é" (\303\251): the 16-byte cap falls between its two bytes.
        JobView cut = create(p, "printf '123456789012345\\303\\251 and more\\n'");

        await().atMost(Duration.ofSeconds(15))
                .until(() -> Fixture.onlyRun(p, invalid.id()).state() == RunState.SUCCEEDED
                        && Fixture.onlyRun(p, cut.id()).state() == RunState.SUCCEEDED);

        assertThat(p.jobService.log(
                        OWNER, invalid.id(), Fixture.onlyRun(p, invalid.id()).runId()))
                .isEqualTo("a\uFFFD\uFFFDb\n");
        assertThat(p.jobService.log(
                        OWNER, cut.id(), Fixture.onlyRun(p, cut.id()).runId()))
                .startsWith("123456789012345\uFFFD\n[punctual: output truncated at " + CAP + " bytes]");
    }

    private static JobView create(Punctual p, String body) {
        return Fixture.createJob(p, "bytes", body, NOW, j -> j.env(Map.of()).maxAttempts(1));
    }
}
