package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.punctual.core.Punctual;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.RunSearch;
import dev.punctual.core.service.Page;
import dev.punctual.core.service.RunListing;
import dev.punctual.core.service.RunView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** GET /v1/runs on the emulators: an owner's runs across jobs through the sharded byOwner index, page by page. */
class RunSearchTest {
    private static final Instant T1 = Instant.parse("2030-03-10T08:00:00Z");
    private static final Instant T2 = T1.plusSeconds(600);
    private static final Instant NOW = T2.plusSeconds(60);

    private Punctual p;
    private final List<Job> early = new ArrayList<>();
    private final List<Job> late = new ArrayList<>();

    @BeforeEach
    void jobs() {
        p = Fixture.stack(TestStack.isolatedSettings().build(), new SettableClock(NOW));
        // Fifteen jobs: nine due at T1, so that at least one of the eight shards holds two of them (a page of one
        // then stops inside it, on a key equal to the lower bound of a range from T1), six at T2; each instant's
        // runs share one run id.
        for (int i = 0; i < 15; i++) {
            Instant due = i < 9 ? T1 : T2;
            String name = "job-" + i;
            Job job = Fixture.insertJob(p, OWNER, Fixture.once(due), due, T1.minusSeconds(60), 1, j -> j.name(name));
            (i < 9 ? early : late).add(job);
        }
    }

    private List<RunView> all(RunListing listing, int limit) {
        List<RunView> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            Page<RunView> page = p.runsAcrossJobs.list(OWNER, listing, limit, cursor);
            assertThat(page.items()).hasSizeLessThanOrEqualTo(limit);
            seen.addAll(page.items());
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null && pages < 50);
        assertThat(cursor).as("the listing ends").isNull();
        return seen;
    }

    @Test
    void everyRunOfEveryJobIsListedOnceNewestDueFirstWithItsJobsName() {
        List<RunView> seen = all(RunListing.DEFAULT, 5);

        assertThat(seen).hasSize(15);
        assertThat(seen.stream().map(v -> v.jobId() + "/" + v.runId()).distinct())
                .hasSize(15);
        // All of T2's before any of T1's.
        assertThat(seen.subList(0, 6)).allMatch(v -> v.scheduledAt().equals(T2.toString()));
        assertThat(seen.subList(6, 15)).allMatch(v -> v.scheduledAt().equals(T1.toString()));
        assertThat(seen).allMatch(v -> v.jobName().equals("job-" + indexOf(v.jobId())));
        // The runs are spread over more than one shard of the owner's partition.
        Set<Integer> shards = new HashSet<>();
        seen.forEach(v -> shards.add(RunSearch.shardOf(v.jobId())));
        assertThat(shards).hasSizeGreaterThan(1);
        assertThat(Items.str(Fixture.rawRun(p, seen.get(0).jobId(), seen.get(0).runId()), Resources.OWNER_SHARD))
                .isEqualTo(OWNER + "#" + RunSearch.shardOf(seen.get(0).jobId()));
    }

    private int indexOf(String jobId) {
        if (early.stream().anyMatch(j -> j.id().equals(jobId))) {
            return early.stream().map(Job::id).toList().indexOf(jobId);
        }
        if (late.stream().anyMatch(j -> j.id().equals(jobId))) {
            return early.size() + late.stream().map(Job::id).toList().indexOf(jobId);
        }
        throw new AssertionError("not one of the test's jobs: " + jobId);
    }

    @Test
    void fromToStateAndFutureNarrowItAndAnotherOwnersRunsNeverShow() {
        Instant ahead = NOW.plusSeconds(3600);
        Job future = Fixture.insertJob(p, OWNER, Fixture.once(ahead), ahead, NOW, 1, j -> j.name("ahead"));
        Job theirs = Fixture.insertJob(p, "someone-else", Fixture.once(T2), T2, T1, 1, j -> j.name("theirs"));
        assertThat(Fixture.claim(p, late.get(0), "ex-a", NOW)).isTrue();

        assertThat(all(RunListing.DEFAULT, 100))
                .hasSize(15)
                .noneMatch(v -> v.jobId().equals(theirs.id()));
        assertThat(all(RunListing.ALL, 100)).hasSize(16).anyMatch(v -> v.jobId().equals(future.id()));
        assertThat(all(new RunListing(null, T1.toString(), T1.toString(), null), 1))
                .hasSize(9)
                .allMatch(v -> v.scheduledAt().equals(T1.toString()));
        assertThat(all(new RunListing("RUNNING", null, null, null), 3))
                .singleElement()
                .satisfies(v -> assertThat(v.jobId()).isEqualTo(late.get(0).id()));
        assertThat(p.runsAcrossJobs
                        .list("someone-else", RunListing.DEFAULT, 10, null)
                        .items())
                .extracting(RunView::jobName)
                .containsExactly("theirs");
        assertThatThrownBy(() -> p.runsAcrossJobs.list(OWNER, new RunListing("NOPE", null, null, null), 10, null))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(
                                ((ValidationException) e).errors().get(0).field())
                        .isEqualTo("state"));
    }

    @Test
    void aCursorNotMadeByTheListingIsRefusedNamingIt() {
        Page<RunView> first = p.runsAcrossJobs.list(OWNER, RunListing.DEFAULT, 3, null);
        assertThat(first.nextCursor()).isNotNull();
        String wrongShard = "{\"" + ((RunSearch.shardOf(early.get(0).id()) + 1) % RunSearch.SHARDS) + "\":\""
                + early.get(0).id() + "/" + early.get(0).pendingRunId() + "\"}";
        for (String forged : List.of(
                "not base64 at all!",
                b64("[1,2]"),
                b64("{\"9\":\"~\"}"),
                b64("{\"0\":\"job_x/../etc\"}"),
                b64(wrongShard))) {
            assertThatThrownBy(() -> p.runsAcrossJobs.list(OWNER, RunListing.DEFAULT, 3, forged))
                    .as(forged)
                    .isInstanceOf(ValidationException.class)
                    .satisfies(e -> assertThat(
                                    ((ValidationException) e).errors().get(0).field())
                            .isEqualTo("cursor"));
        }
        // The cursor it made goes on.
        assertThat(p.runsAcrossJobs
                        .list(OWNER, RunListing.DEFAULT, 3, first.nextCursor())
                        .items())
                .isNotEmpty();
    }

    private static String b64(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }
}
