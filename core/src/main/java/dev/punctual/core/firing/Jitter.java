package dev.punctual.core.firing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * A delay added to each occurrence of a job, at most {@code max}: {@link Mode#RANDOM} draws a new one for every
 * run; {@link Mode#HASHED} derives one from the job id, so a job always fires at the same offset while identical
 * jobs spread out (Jenkins' {@code H}, Dkron's {@code ~}). Offsets are whole milliseconds. Jitter only moves when
 * a run is due: the occurrence it stands for (its run id, its successor, its idempotency key) is unchanged.
 */
public record Jitter(Mode mode, Duration max) {
    /** The largest jitter a job may ask for. */
    public static final Duration LIMIT = Duration.ofHours(1);

    public enum Mode {
        RANDOM,
        HASHED;

        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** When the run of {@code occurrence} is due. */
    public Instant apply(String jobId, Instant occurrence, RandomGenerator random) {
        long bound = max.toMillis() + 1;
        long offset = mode == Mode.HASHED
                ? Math.floorMod(
                        UUID.nameUUIDFromBytes(jobId.getBytes(StandardCharsets.UTF_8))
                                .getMostSignificantBits(),
                        bound)
                : random.nextLong(bound);
        return occurrence.plusMillis(offset);
    }
}
