package dev.punctual.core.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The claim's due check compares the stored {@code scheduledAt} string with {@link RunRepository#dueBound}; the
 * strings do not sort in time order within a second, so the comparison is checked here against the instants.
 */
class ClaimDueBoundTest {
    private static final Instant BASE = Instant.parse("2030-06-01T12:00:00Z");

    /** What DynamoDB evaluates: {@code scheduledAt <= :dueBound}, byte-wise on the stored (ASCII) string. */
    private static boolean conditionHolds(Instant scheduledAt, Instant now) {
        return scheduledAt.toString().compareTo(RunRepository.dueBound(now)) <= 0;
    }

    @Test
    void aRunDueAtOrBeforeNowIsClaimableAndOneDueBeyondTheToleranceIsNot() {
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            // now: whole seconds too, where the bound is exactly now.
            Instant now = i % 5 == 0
                    ? BASE.plusSeconds(random.nextInt(10))
                    : BASE.plusNanos(random.nextLong(10_000_000_000L));
            // Whole seconds, milliseconds and micro/nanoseconds: Instant.toString writes 0, 3, 6 or 9 digits.
            Instant due = switch (i % 4) {
                case 0 -> now.plusSeconds(random.nextInt(7) - 3).truncatedTo(ChronoUnit.SECONDS);
                case 1 -> now.plusMillis(random.nextInt(6000) - 3000);
                case 2 ->
                    now.plusNanos(random.nextLong(6_000_000_000L) - 3_000_000_000L)
                            .truncatedTo(ChronoUnit.MICROS);
                default -> now.plusNanos(random.nextLong(6_000_000_000L) - 3_000_000_000L);
            };
            boolean holds = conditionHolds(due, now);
            assertThat(holds).as("due %s, now %s", due, now).isEqualTo(RunRepository.dueForClaim(due, now));
            if (!due.isAfter(now)) {
                assertThat(holds).as("due %s is not after now %s", due, now).isTrue();
            }
            if (due.isAfter(now.plus(RunRepository.CLAIM_TOLERANCE))) {
                assertThat(holds)
                        .as("due %s is beyond the tolerance of now %s", due, now)
                        .isFalse();
            }
        }
    }

    @Test
    void withinOneSecondTheWholeSecondStringSortsLastButTheBoundStillSeparatesSeconds() {
        Instant now = Instant.parse("2030-06-01T12:00:05.200Z");
        assertThat("2030-06-01T12:00:05Z").isGreaterThan("2030-06-01T12:00:05.500Z");
        // A claim may win up to CLAIM_TOLERANCE (2 s) early: from the start of the second before the due second.
        assertThat(conditionHolds(Instant.parse("2030-06-01T12:00:05Z"), now)).isTrue();
        assertThat(conditionHolds(Instant.parse("2030-06-01T12:00:06Z"), now)).isTrue();
        assertThat(conditionHolds(Instant.parse("2030-06-01T12:00:06.999Z"), now))
                .isTrue();
        assertThat(conditionHolds(Instant.parse("2030-06-01T12:00:07Z"), now)).isFalse();
        assertThat(conditionHolds(Instant.parse("2030-06-01T12:00:07.001Z"), now))
                .isFalse();
        assertThat(conditionHolds(now.plus(Duration.ofHours(1)), now)).isFalse();
        assertThat(conditionHolds(now.minus(Duration.ofDays(400)), now)).isTrue();
    }
}
