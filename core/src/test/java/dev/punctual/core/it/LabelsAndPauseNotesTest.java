package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.Rejection;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.service.JobListing;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.service.PauseRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Labels on jobs, the job list's filters, and the note a pause carries, on the real repositories. */
class LabelsAndPauseNotesTest extends ClockedStackTest {
    private JobView create(String name, Map<String, String> labels) {
        JobView job = p.jobService.create(OWNER, request(name, labels));
        clock.advance(Duration.ofSeconds(1));
        return job;
    }

    private JobRequest request(String name, Map<String, String> labels) {
        return JobRequest.builder(name, binaryId, Fixture.interval(Duration.ofHours(1), clock.instant()))
                .labels(labels)
                .build();
    }

    private List<String> names(JobListing listing) {
        return p.jobService.list(OWNER, null, null, listing).items().stream()
                .map(JobView::name)
                .toList();
    }

    @Test
    void labelsAreKeptShownAndReplacedByAPut() {
        JobView job = create("nightly", Map.of("team", "payments", "tier", "gold"));
        assertThat(p.jobService.get(OWNER, job.id()).labels())
                .containsExactlyInAnyOrderEntriesOf(Map.of("team", "payments", "tier", "gold"));

        JobView updated = p.jobService.update(OWNER, job.id(), "*", request("nightly", Map.of("team", "billing")));
        assertThat(updated.labels()).containsExactlyEntriesOf(Map.of("team", "billing"));

        // A PUT replaces the whole definition: without labels, the job has none.
        JobView bare = p.jobService.update(OWNER, job.id(), "*", request("nightly", null));
        assertThat(bare.labels()).isEmpty();
        assertThat(p.jobService.get(OWNER, job.id()).labels()).isEmpty();
    }

    @Test
    void badLabelsAreRejectedEachByNameAndNothingIsWritten() {
        Map<String, String> labels = new HashMap<>();
        labels.put("-starts-badly", "x");
        labels.put("fine", "has space");
        labels.put("ok", "");
        ValidationException e =
                catchThrowableOfType(ValidationException.class, () -> p.jobService.create(OWNER, request("j", labels)));
        assertThat(e.kind()).isEqualTo(Rejection.INVALID);
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("labels.-starts-badly", "labels.fine");

        Map<String, String> many = new HashMap<>();
        for (int i = 0; i <= 16; i++) {
            many.put("k" + i, "v");
        }
        ValidationException tooMany =
                catchThrowableOfType(ValidationException.class, () -> p.jobService.create(OWNER, request("j", many)));
        assertThat(tooMany.errors())
                .singleElement()
                .satisfies(f -> assertThat(f.field()).isEqualTo("labels"));
        assertThat(Fixture.countItems(p, p.resources.jobs().name())).isZero();
    }

    @Test
    void theListFiltersByLabelStateAndNamePrefix() {
        create("pay-nightly", Map.of("team", "payments", "tier", "gold"));
        create("pay-hourly", Map.of("team", "payments"));
        JobView billing = create("bill-report", Map.of("team", "billing", "tier", "gold"));
        create("unlabelled", null);
        p.lifecycle.pause(OWNER, billing.id());

        assertThat(names(new JobListing(null, "team=payments", null))).containsExactly("pay-nightly", "pay-hourly");
        assertThat(names(new JobListing(null, "team=payments,tier=gold", null))).containsExactly("pay-nightly");
        assertThat(names(new JobListing(null, "tier", null))).containsExactly("pay-nightly", "bill-report");
        assertThat(names(new JobListing("PAUSED", null, null))).containsExactly("bill-report");
        assertThat(names(new JobListing("ACTIVE", "tier=gold", null))).containsExactly("pay-nightly");
        assertThat(names(new JobListing(null, null, "pay-"))).containsExactly("pay-nightly", "pay-hourly");
        assertThat(names(new JobListing(null, "team=nobody", null))).isEmpty();
        assertThat(names(JobListing.ALL)).hasSize(4);
    }

    @Test
    void aFilterThatDoesNotParseIsA400NamingItsParameter() {
        ValidationException e = catchThrowableOfType(
                ValidationException.class,
                () -> p.jobService.list(OWNER, null, null, new JobListing("RUNNING", "team=a b", null)));
        assertThat(e.kind()).isEqualTo(Rejection.MALFORMED);
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("state", "label");
    }

    @Test
    void aPauseNoteIsShownWhilePausedAndGoneAfterResume() {
        JobView job = create("nightly", null);
        JobView paused = p.lifecycle.pause(OWNER, job.id(), new PauseRequest("upstream API down, INC-42"));
        assertThat(paused.state()).isEqualTo("PAUSED");
        assertThat(paused.pauseNote()).isEqualTo("upstream API down, INC-42");
        assertThat(p.jobService.get(OWNER, job.id()).pauseNote()).isEqualTo("upstream API down, INC-42");

        // Pausing again changes nothing, the note included.
        assertThat(p.lifecycle
                        .pause(OWNER, job.id(), new PauseRequest("another"))
                        .pauseNote())
                .isEqualTo("upstream API down, INC-42");

        JobView resumed = p.lifecycle.resume(OWNER, job.id(), null);
        assertThat(resumed.state()).isEqualTo("ACTIVE");
        assertThat(resumed.pauseNote()).isNull();
        // A later pause without a note shows none, not the old one.
        assertThat(p.lifecycle.pause(OWNER, job.id()).pauseNote()).isNull();
    }

    @Test
    void aBadPauseNoteIsRejectedAndTheJobStaysActive() {
        JobView job = create("nightly", null);
        ValidationException e = catchThrowableOfType(
                ValidationException.class,
                () -> p.lifecycle.pause(OWNER, job.id(), new PauseRequest("x".repeat(PauseRequest.MAX_NOTE + 1))));
        assertThat(e.errors()).extracting(FieldError::field).containsExactly("note");
        assertThat(p.jobService.get(OWNER, job.id()).state()).isEqualTo("ACTIVE");
    }
}
