package dev.punctual.core.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.firing.CatchUpSpec;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Jitter;
import dev.punctual.core.firing.JitterSpec;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.firing.Priority;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FiringChecksTest {

    /** A request with none of the firing fields, to name some on. */
    private static JobRequest.Builder request() {
        return JobRequest.builder("job", "binary", null);
    }

    private static List<FieldError> errors(JitterSpec j, CatchUpSpec c, String overlap, String maxRunAge) {
        List<FieldError> errors = new ArrayList<>();
        FiringChecks.parse(
                request()
                        .jitter(j)
                        .catchUp(c)
                        .overlap(overlap)
                        .maxRunAge(maxRunAge)
                        .build(),
                errors);
        return errors;
    }

    @Test
    void absentFieldsTakeTheDocumentedDefaults() {
        List<FieldError> errors = new ArrayList<>();
        FiringPolicy p = FiringChecks.parse(request().build(), errors);
        assertThat(errors).isEmpty();
        assertThat(p).isEqualTo(FiringPolicy.DEFAULT);
        assertThat(p.jitter()).isNull();
        assertThat(p.catchUp()).isEqualTo(new CatchUp(CatchUp.Mode.ALL, Duration.ofDays(1), 100));
        assertThat(p.overlap()).isEqualTo(Overlap.ALLOW);
        assertThat(p.maxRunAge()).isEqualTo(Duration.ofDays(1));
        assertThat(p.maxConcurrency()).isEqualTo(1);
    }

    @Test
    void aConcurrencyLimitIsWithinItsBoundsAndOnlyWhereARunCanWait() {
        List<FieldError> errors = new ArrayList<>();
        assertThat(FiringChecks.parse(
                                request()
                                        .overlap("forbid")
                                        .maxConcurrency(FiringPolicy.MAX_CONCURRENCY_LIMIT)
                                        .build(),
                                errors)
                        .maxConcurrency())
                .isEqualTo(FiringPolicy.MAX_CONCURRENCY_LIMIT);
        assertThat(FiringChecks.parse(
                                request().overlap("allow").maxConcurrency(1).build(), errors)
                        .maxConcurrency())
                .as("1 under allow: what a job's view says, taken back unchanged")
                .isEqualTo(1);
        assertThat(errors).isEmpty();
        for (int bad : new int[] {0, -1, FiringPolicy.MAX_CONCURRENCY_LIMIT + 1}) {
            List<FieldError> e = new ArrayList<>();
            FiringChecks.parse(request().overlap("queue").maxConcurrency(bad).build(), e);
            assertThat(e)
                    .containsExactly(new FieldError(
                            "maxConcurrency", "must be between 1 and " + FiringPolicy.MAX_CONCURRENCY_LIMIT));
        }
        List<FieldError> e = new ArrayList<>();
        FiringChecks.parse(request().maxConcurrency(3).build(), e);
        assertThat(e).extracting(FieldError::field).containsExactly("maxConcurrency");
        assertThat(e.getFirst().message()).startsWith("needs overlap forbid or queue");
    }

    @Test
    void everyFieldIsParsedCaseInsensitively() {
        List<FieldError> errors = new ArrayList<>();
        FiringPolicy p = FiringChecks.parse(
                request()
                        .jitter(new JitterSpec("Hashed", "PT45S"))
                        .catchUp(new CatchUpSpec("LATEST", "PT6H", 3))
                        .overlap("queue")
                        .maxRunAge("PT2H")
                        .maxConcurrency(4)
                        .priority("High")
                        .build(),
                errors);
        assertThat(errors).isEmpty();
        assertThat(p)
                .isEqualTo(new FiringPolicy(
                        new Jitter(Jitter.Mode.HASHED, Duration.ofSeconds(45)),
                        new CatchUp(CatchUp.Mode.LATEST, Duration.ofHours(6), 3),
                        Overlap.QUEUE,
                        Duration.ofHours(2),
                        4,
                        Priority.HIGH));
        assertThat(FiringChecks.jitterSpec(p)).isEqualTo(new JitterSpec("hashed", "PT45S"));
        assertThat(FiringChecks.catchUpSpec(p)).isEqualTo(new CatchUpSpec("latest", "PT6H", 3));
    }

    @Test
    void eachBadFieldIsNamed() {
        assertThat(errors(new JitterSpec(null, null), null, null, null))
                .extracting(FieldError::field)
                .containsExactly("jitter.mode", "jitter.max");
        assertThat(errors(new JitterSpec("sometimes", "PT2H"), null, null, null))
                .extracting(FieldError::field)
                .containsExactly("jitter.mode", "jitter.max");
        assertThat(errors(new JitterSpec("random", "soon"), null, null, null))
                .extracting(FieldError::message)
                .containsExactly("is not an ISO-8601 duration (e.g. PT30S, PT5M, P1D)");
        assertThat(errors(null, new CatchUpSpec("most", "PT10S", 0), null, null))
                .extracting(FieldError::field)
                .containsExactly("catchUp.mode", "catchUp.maxAge", "catchUp.maxRuns");
        assertThat(errors(null, new CatchUpSpec(null, "P31D", 1001), null, null))
                .extracting(FieldError::field)
                .containsExactly("catchUp.maxAge", "catchUp.maxRuns");
        assertThat(errors(null, null, "never", "P15D"))
                .extracting(FieldError::field)
                .containsExactly("overlap", "maxRunAge");
        assertThat(errors(null, null, null, "PT59S"))
                .extracting(FieldError::message)
                .containsExactly("must be between PT1M and PT336H");
    }

    @Test
    void aCatchUpGivenAsAStringIsJustItsMode() {
        assertThat(CatchUpSpec.of("skip")).isEqualTo(new CatchUpSpec("skip", null, null));
        assertThat(FiringChecks.catchUpMode("Latest")).isEqualTo(CatchUp.Mode.LATEST);
        assertThat(FiringChecks.catchUpMode("most")).isNull();
    }
}
