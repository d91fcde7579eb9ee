package dev.punctual.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.job.CommandLine;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The rules of a job request that need no storage: the args+env budget and the If-Match header. */
class JobRequestLimitsTest {

    @Test
    void argsAndEnvUpToTheBudgetPass() {
        // 64 args of 4096 bytes: exactly the budget.
        assertThatCode(() -> BinaryInputs.checkArgsEnvBudget(Collections.nCopies(64, "a".repeat(4096)), Map.of()))
                .doesNotThrowAnyException();
    }

    @Test
    void theBudgetCountsUtf8BytesOfArgsEnvNamesAndValues() {
        ValidationException e = catchThrowableOfType(
                ValidationException.class,
                () -> BinaryInputs.checkArgsEnvBudget(
                        Collections.nCopies(63, "a".repeat(4096)), Map.of("A", "é".repeat(2048))));
        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(Rejection.TOO_LARGE);
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("args", "env");
        assertThat(e.errors().getFirst().message()).contains("262145 bytes").contains("262144");
    }

    @Test
    void onlyTheNonEmptyOneIsNamed() {
        ValidationException e = catchThrowableOfType(
                ValidationException.class,
                () -> BinaryInputs.checkArgsEnvBudget(
                        List.of(), Map.of("A", "v".repeat(CommandLine.MAX_ARGS_ENV_BYTES))));
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("env");
    }

    @Test
    void ifMatchStarMatchesAnyVersion() {
        assertThat(JobValidator.parseIfMatch("*")).isEqualTo(OptionalLong.empty());
        assertThat(JobValidator.parseIfMatch(" W/\"3\" ")).isEqualTo(OptionalLong.of(3));
        ValidationException e = catchThrowableOfType(ValidationException.class, () -> JobValidator.parseIfMatch("**"));
        assertThat(e.kind()).isEqualTo(Rejection.MALFORMED);
    }
}
