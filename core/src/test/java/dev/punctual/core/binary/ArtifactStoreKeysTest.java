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
}
