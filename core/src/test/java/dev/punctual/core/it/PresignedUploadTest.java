package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.infra.Metering;
import dev.punctual.core.service.BinaryView;
import dev.punctual.core.testing.TestStack;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The presigned PUT of a binary, against S3Proxy: it signs the body's sha256 and length. */
class PresignedUploadTest {
    private Punctual p;

    @BeforeEach
    void setUp() {
        p = Fixture.stack(TestStack.isolatedSettings().build(), Clock.systemUTC());
    }

    @Test
    void theRegisteredBodyIsAcceptedAndTheBinaryReadsAsUploaded() {
        byte[] bytes = Fixture.script("echo hello");
        BinaryView v = Fixture.register(p, OWNER, bytes);
        assertThat(v.uploadHeaders()).containsKey("x-amz-checksum-sha256");
        assertThat(p.binaries.get(OWNER, v.id()).uploaded()).isFalse();

        HttpResponse<String> r = Fixture.presignedPut(v, bytes);

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(p.binaries.get(OWNER, v.id()).uploaded()).isTrue();
        assertThat(p.store.size(ArtifactStore.binaryKey(OWNER, v.sha256()))).contains((long) bytes.length);
    }

    @Test
    void onceFoundInPlaceTheBinaryIsMarkedAndS3IsNotAskedAgain() {
        Metering.enable();
        byte[] bytes = Fixture.script("echo hello");
        BinaryView v = Fixture.register(p, OWNER, bytes);
        assertThat(Fixture.presignedPut(v, bytes).statusCode()).isEqualTo(200);
        double heads = Metering.snapshot().getOrDefault("calls:S3:HeadObject", 0.0);

        assertThat(p.binaries.get(OWNER, v.id()).uploaded()).isTrue();
        assertThat(p.binaries.get(OWNER, v.id()).uploaded()).isTrue();
        assertThat(p.binaries.get(OWNER, v.id()).uploaded()).isTrue();

        assertThat(Metering.snapshot().getOrDefault("calls:S3:HeadObject", 0.0))
                .as("only the first look asks S3")
                .isEqualTo(heads + 1);
    }

    @Test
    void aDifferentBodyOfTheSameLengthIsRejectedAndNothingIsStored() {
        byte[] bytes = Fixture.script("echo hello");
        byte[] tampered = Fixture.script("echo HELLO");
        assertThat(tampered).hasSameSizeAs(bytes);
        BinaryView v = Fixture.register(p, OWNER, bytes);

        HttpResponse<String> r = Fixture.presignedPut(v, tampered);

        assertThat(r.statusCode()).as(r.body()).isBetween(400, 499);
        assertThat(r.body()).contains("BadDigest");
        assertThat(p.binaries.get(OWNER, v.id()).uploaded()).isFalse();
        assertThat(p.store.size(ArtifactStore.binaryKey(OWNER, v.sha256()))).isEmpty();

        // The URL still works for the right bytes.
        assertThat(Fixture.presignedPut(v, bytes).statusCode()).isEqualTo(200);
        assertThat(p.binaries.get(OWNER, v.id()).uploaded()).isTrue();
    }

    @Test
    void aBodyOfAnotherLengthIsRejected() {
        byte[] bytes = Fixture.script("echo hello");
        BinaryView v = Fixture.register(p, OWNER, bytes);

        HttpResponse<String> r =
                Fixture.presignedPut(v, "#!/bin/sh\necho something else entirely\n".getBytes(StandardCharsets.UTF_8));

        assertThat(r.statusCode()).as(r.body()).isBetween(400, 499);
        assertThat(p.binaries.get(OWNER, v.id()).uploaded()).isFalse();
    }
}
