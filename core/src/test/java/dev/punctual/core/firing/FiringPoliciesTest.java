package dev.punctual.core.firing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.error.FieldError;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FiringPoliciesTest {

    private static List<FieldError> errors(JitterSpec j, CatchUpSpec c, String overlap, String maxRunAge) {
        List<FieldError> errors = new ArrayList<>();
        FiringPolicies.parse(j, c, overlap, maxRunAge, null, null, errors);
        return errors;
    }

    @Test
    void absentFieldsTakeTheDocumentedDefaults() {
        List<FieldError> errors = new ArrayList<>();
        FiringPolicy p = FiringPolicies.parse(null, null, null, null, null, null, errors);
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
        assertThat(FiringPolicies.parse(null, null, "forbid", null, FiringPolicy.MAX_CONCURRENCY_LIMIT, null, errors)
                        .maxConcurrency())
                .isEqualTo(FiringPolicy.MAX_CONCURRENCY_LIMIT);
        assertThat(FiringPolicies.parse(null, null, "allow", null, 1, null, errors)
                        .maxConcurrency())
                .as("1 under allow: what a job's view says, taken back unchanged")
                .isEqualTo(1);
        assertThat(errors).isEmpty();
        for (int bad : new int[] {0, -1, FiringPolicy.MAX_CONCURRENCY_LIMIT + 1}) {
            List<FieldError> e = new ArrayList<>();
            FiringPolicies.parse(null, null, "queue", null, bad, null, e);
            assertThat(e)
                    .containsExactly(new FieldError(
                            "maxConcurrency", "must be between 1 and " + FiringPolicy.MAX_CONCURRENCY_LIMIT));
        }
        List<FieldError> e = new ArrayList<>();
        FiringPolicies.parse(null, null, null, null, 3, null, e);
        assertThat(e).extracting(FieldError::field).containsExactly("maxConcurrency");
        assertThat(e.getFirst().message()).startsWith("needs overlap forbid or queue");
    }

    @Test
    void everyFieldIsParsedCaseInsensitively() {
        List<FieldError> errors = new ArrayList<>();
        FiringPolicy p = FiringPolicies.parse(
                new JitterSpec("Hashed", "PT45S"),
                new CatchUpSpec("LATEST", "PT6H", 3),
                "queue",
                "PT2H",
                4,
                "High",
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
        assertThat(FiringPolicies.jitterSpec(p)).isEqualTo(new JitterSpec("hashed", "PT45S"));
        assertThat(FiringPolicies.catchUpSpec(p)).isEqualTo(new CatchUpSpec("latest", "PT6H", 3));
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
        assertThat(FiringPolicies.catchUpMode("Latest")).isEqualTo(CatchUp.Mode.LATEST);
        assertThat(FiringPolicies.catchUpMode("most")).isNull();
    }
}
