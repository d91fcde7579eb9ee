package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.Punctual;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.service.BinaryView;
import dev.punctual.core.service.Page;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** GET /v1/binaries: an owner's binaries, newest first, page by page, found by content; nobody else's. */
class BinaryListingTest {
    private static final String ALICE = "https://issuer.example|alice";
    private static final String BOB = "https://issuer.example|bob";

    private final Punctual p = Fixture.realTimeStack();

    @Test
    void anOwnerSeesOnlyTheirOwnBinariesNewestFirstAcrossPages() {
        // A second apart: the listing is ordered by registration time, to the second.
        SettableClock clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
        Punctual p = Fixture.stack(TestStack.isolatedSettings().build(), clock);
        List<String> registered = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            registered.add(
                    Fixture.register(p, ALICE, Fixture.script("echo " + i)).id());
            clock.set(clock.instant().plus(Duration.ofSeconds(1)));
        }
        Fixture.register(p, BOB, Fixture.script("echo 0"));

        List<String> listed = new ArrayList<>();
        Page<BinaryView> page = p.binaries.list(ALICE, 2, null, null);
        listed.addAll(page.items().stream().map(BinaryView::id).toList());
        while (page.nextCursor() != null) {
            page = p.binaries.list(ALICE, 2, page.nextCursor(), null);
            listed.addAll(page.items().stream().map(BinaryView::id).toList());
        }
        assertThat(listed).as("newest first").containsExactlyElementsOf(registered.reversed());
        assertThat(p.binaries.list(BOB, null, null, null).items()).hasSize(1);
    }

    @Test
    void aContentIsFoundByItsSha256WithWhetherItIsUploaded() {
        byte[] tool = Fixture.script("echo tool");
        String uploaded = Fixture.uploadBinary(p, ALICE, tool);
        Fixture.register(p, ALICE, Fixture.script("echo other"));
        String again = Fixture.register(p, ALICE, tool).id();

        List<BinaryView> found =
                p.binaries.list(ALICE, null, null, Fixture.sha256(tool)).items();

        assertThat(found).extracting(BinaryView::id).containsExactlyInAnyOrder(again, uploaded);
        assertThat(found)
                .as("the bytes are at the owner's key once: both registrations of them are uploaded")
                .allSatisfy(b -> assertThat(b.uploaded()).isTrue());
        assertThat(found).allSatisfy(b -> assertThat(b.uploadUrl()).isNull());
        assertThat(p.binaries.list(BOB, null, null, Fixture.sha256(tool)).items())
                .isEmpty();
    }

    @Test
    void aMalformedSha256OrAnotherOwnersCursorIsRefusedNamingTheParameter() {
        ValidationException sha =
                catchThrowableOfType(ValidationException.class, () -> p.binaries.list(ALICE, null, null, "abc"));
        assertThat(sha.errors()).anySatisfy(e -> assertThat(e.field()).isEqualTo("sha256"));

        for (int i = 0; i < 3; i++) {
            Fixture.register(p, BOB, Fixture.script("echo bob " + i));
        }
        String bobsCursor = p.binaries.list(BOB, 1, null, null).nextCursor();
        assertThat(bobsCursor).isNotNull();
        ValidationException cursor =
                catchThrowableOfType(ValidationException.class, () -> p.binaries.list(ALICE, 1, bobsCursor, null));
        assertThat(cursor.errors()).anySatisfy(e -> assertThat(e.field()).isEqualTo("cursor"));
    }
}
