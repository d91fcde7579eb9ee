package dev.punctual.core.limits;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a run gets from its job's limits under an executor's maxima. */
class RunLimitsWithinTest {
    private static final RunLimits MAXIMA = new RunLimits(256, 2048, 1024, 1024, 3600, 1024);

    @Test
    void fieldsLeftOutGetTheMaximaAndFieldsAskedForAreCappedByThem() {
        assertThat(RunLimits.NONE.within(MAXIMA)).isEqualTo(MAXIMA);
        assertThat(new RunLimits(10, 4096, null, 100, 5, 512).within(MAXIMA))
                .isEqualTo(new RunLimits(10, 2048, 1024, 100, 5, 512));
    }

    @Test
    void noFileMayBeLargerThanTheDisk() {
        // Left out, the file size would be the maximum, 1024 MiB, on a disk of 128.
        assertThat(new RunLimits(null, null, null, null, null, 128)
                        .within(MAXIMA)
                        .fileSizeMb())
                .isEqualTo(128);
        assertThat(new RunLimits(null, null, null, 512, null, 128)
                        .within(MAXIMA)
                        .fileSizeMb())
                .isEqualTo(128);
        assertThat(new RunLimits(null, null, null, 64, null, 128).within(MAXIMA).fileSizeMb())
                .isEqualTo(64);
        // An executor whose own maxima give files more than the disk.
        assertThat(RunLimits.NONE
                        .within(new RunLimits(256, 2048, 1024, 4096, 3600, 1024))
                        .fileSizeMb())
                .isEqualTo(1024);
    }

    @Test
    void theApiChecksEachFieldAgainstItsOwnMaximumOnly() {
        // A file size above the disk is not an error: the run gets the disk's.
        assertThat(new RunLimits(null, null, null, 512, null, 128).problems(MAXIMA))
                .isEmpty();
    }
}
