package dev.punctual.core.binary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Binaries are keyed per owner: a fixed-length hash of the owner, then the content's sha256. */
class ArtifactStoreKeysTest {
    private static final String SHA = "0123456789abcdef".repeat(4);

    @Test
    void ownersOfAnyShapeGetTheirOwnFixedLengthPrefix() {
        List<String> owners = List.of(
                "local",
                "https://issuer.example|subject-1",
                "https://issuer.example|subject-2",
                "arn:aws:iam::123456789012:role/x",
                "x".repeat(5000));
        List<String> keys =
                owners.stream().map(o -> ArtifactStore.binaryKey(o, SHA)).toList();
        assertThat(keys)
                .doesNotHaveDuplicates()
                .allSatisfy(k -> assertThat(k).matches("binaries/[0-9a-f]{64}/sha256/" + SHA));
        assertThat(ArtifactStore.binaryKey("local", SHA)).isEqualTo(ArtifactStore.binaryKey("local", SHA));
    }

    @Test
    void aBinaryWithoutOwnerHasNoKey() {
        assertThatThrownBy(() -> ArtifactStore.ownerKey(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ArtifactStore.ownerKey("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void chunksAreNamedByTheirPaddedEndUnderTheirAttemptSoKeyOrderIsOffsetOrder() {
        List<Long> ends = List.of(0L, 9L, 10L, 1_000L, 5_242_880L, 999_999_999_999L);
        List<String> keys = ends.stream()
                .map(e -> ArtifactStore.chunkKey("job_a", "20300101T000000.000Z", 2, e))
                .toList();
        assertThat(keys)
                .isSorted()
                .allSatisfy(k -> assertThat(k).matches("logs/job_a/20300101T000000\\.000Z/attempt-2/[0-9]{12}"));
        assertThat(keys.get(1)).endsWith("/000000000009");
        assertThat(ArtifactStore.chunkPrefix("job_a", "r", 1))
                .isNotEqualTo(ArtifactStore.chunkPrefix("job_a", "r", 10));
        assertThat(ArtifactStore.chunkPrefix("job_a", "r", 1)).doesNotStartWith(ArtifactStore.logKey("job_a", "r", 1));
        assertThatThrownBy(() -> ArtifactStore.chunkKey("j", "r", 1, 1_000_000_000_000L))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ArtifactStore.chunkKey("j", "r", 1, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
