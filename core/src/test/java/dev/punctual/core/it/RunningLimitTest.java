package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.limits.RunningLimits;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.RunView;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tenant's running limit on two real executors: one tenant's runs of several jobs never run more than its limit
 * at once, those over it wait saying why and use no attempt, and another tenant's runs are not held back by it.
 */
class RunningLimitTest {
    private static final String OTHER = "other-tenant";

    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    /** A binary that writes "start|end <tenant> <run> <epoch ms>" to the witness around a 2-second sleep. */
    private static final String SPAN = "echo \"start $TENANT $SCHEDULER_RUN_ID $(date +%s%3N)\" >> \"$WITNESS\";"
            + " sleep 2; echo \"end $TENANT $SCHEDULER_RUN_ID $(date +%s%3N)\" >> \"$WITNESS\"";

    private static JobView job(Punctual p, String owner, String name, Path witness, Instant later) {
        String binaryId = Fixture.uploadBinary(p, owner, Fixture.script(SPAN));
        return p.jobService.create(
                owner,
                JobRequest.builder(name, binaryId, Fixture.once(later))
                        .env(Map.of("WITNESS", witness.toString(), "TENANT", owner))
                        .build());
    }

    /** The most spans of {@code tenant} running at one instant, by the binaries' own times. */
    private static int mostAtOnce(List<String> lines, String tenant) {
        List<long[]> spans = new ArrayList<>();
        for (String l : lines) {
            String[] f = l.split(" ");
            if (f[0].equals("start") && f[1].equals(tenant)) {
                long end = lines.stream()
                        .map(x -> x.split(" "))
                        .filter(x -> x[0].equals("end") && x[2].equals(f[2]))
                        .mapToLong(x -> Long.parseLong(x[3]))
                        .findFirst()
                        .orElseThrow();
                spans.add(new long[] {Long.parseLong(f[3]), end});
            }
        }
        int most = 0;
        for (long[] s : spans) {
            int at = (int)
                    spans.stream().filter(o -> o[0] <= s[0] && s[0] < o[1]).count();
            most = Math.max(most, at);
        }
        return most;
    }

    @Test
    void aTenantOfTwoRunsTwoAtOnceTheRestWaitSayingWhyAndAnotherTenantIsNotHeldBack() {
        Path witness = Fixture.witness(tmp);
        Punctual p = Fixture.stack(
                Fixture.realTimeSettings()
                        .running(new RunningLimits(0, Map.of(OWNER, 2)))
                        .build(),
                Clock.systemUTC());
        Instant later = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        List<JobView> jobs = List.of(
                job(p, OWNER, "a", witness, later),
                job(p, OWNER, "b", witness, later),
                job(p, OWNER, "c", witness, later));
        JobView others = job(p, OTHER, "o", witness, later);
        executors.start(p, "ex-1", tmp.resolve("ex-1"));
        executors.start(p, "ex-2", tmp.resolve("ex-2"));

        List<String[]> runs = new ArrayList<>();
        for (JobView j : jobs) {
            for (int i = 0; i < 2; i++) {
                runs.add(
                        new String[] {j.id(), p.lifecycle.trigger(OWNER, j.id()).runId()});
            }
        }
        for (int i = 0; i < 2; i++) {
            runs.add(new String[] {
                others.id(), p.lifecycle.trigger(OTHER, others.id()).runId()
            });
        }
        // While some wait, a waiting run says why.
        Set<String> said = ConcurrentHashMap.newKeySet();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (String[] r : runs) {
                String waiting = RunView.of(Fixture.run(p, r[0], r[1]), null).waiting();
                if (waiting != null) {
                    said.add(waiting);
                }
            }
            return !said.isEmpty();
        });
        assertThat(said).allSatisfy(w -> assertThat(w).contains("2 runs running, its limit"));
        await().atMost(Duration.ofSeconds(90))
                .until(() -> runs.stream()
                        .allMatch(r -> Fixture.run(p, r[0], r[1]).state().terminal()));

        List<String> lines = Fixture.lines(witness);
        assertThat(runs).allSatisfy(r -> {
            RunView v = RunView.of(Fixture.run(p, r[0], r[1]), null);
            assertThat(v.state()).isEqualTo("SUCCEEDED");
            assertThat(v.attempt()).as("waiting used no attempt").isEqualTo(1);
            assertThat(v.waiting()).isNull();
        });
        assertThat(mostAtOnce(lines, OWNER))
                .as("the limited tenant's runs at once")
                .isEqualTo(2);
        // The other tenant's two ran side by side, beside the limited tenant's two, on eight slots.
        assertThat(mostAtOnce(lines, OTHER)).isEqualTo(2);
    }
}
