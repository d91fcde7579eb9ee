package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.store.Claims;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The exclusive claim ({@code overlap: forbid|queue}) on DynamoDB Local: won, and each condition it can lose on. */
class ClaimsTest {
    private final Instant now = Instant.parse("2030-01-01T10:00:00Z");
    private final Punctual p = Fixture.stackAt(now);
    private final Claims claims = new Claims(p.jobs, p.runs, p.tx);

    private Change grant(String jobId, String runId) {
        return Change.of(Transition.CLAIM, jobId, runId, now).withLease("ex-a", now.plus(Duration.ofMinutes(1)));
    }

    @Test
    void theFirstClaimWinsAndEachLaterOneSaysWhichConditionItLostOn() {
        Job job = Fixture.insertJob(
                p,
                Fixture.interval(Duration.ofMinutes(1), now),
                now,
                now,
                3,
                new FiringPolicy(null, null, Overlap.FORBID, null));
        String first = job.pendingRunId();
        // A second run of the job, due now too (as a trigger's would be).
        Instant other = now.minusSeconds(30);
        Run second = Run.scheduled(job.id(), RunIds.forOccurrence(other), job.owner(), other, 3, now);
        assertThat(p.tx.write(List.of(p.runs.create(Change.of(Transition.SCHEDULE, second, now))))
                        .won())
                .isTrue();

        assertThat(claims.claimExclusive(grant(job.id(), first), null, now)).isEqualTo(new Claims.Won());
        assertThat(Fixture.run(p, job.id(), first).state()).isEqualTo(RunState.RUNNING);
        assertThat(p.jobs.get(job.id()).orElseThrow().activeRunId()).isEqualTo(first);

        assertThat(claims.claimExclusive(grant(job.id(), second.runId()), null, now))
                .as("the job's active run is not the one expected any more")
                .isEqualTo(new Claims.JobLost(Optional.of(JobState.ACTIVE)));
        assertThat(claims.claimExclusive(grant(job.id(), second.runId()), first, now))
                .as("the active run is running under a live lease")
                .isEqualTo(new Claims.OverlapRunning(first));
        assertThat(claims.claimExclusive(grant(job.id(), first), first, now))
                .as("the run itself is running under a live lease: the run as it is comes back")
                .isInstanceOfSatisfying(Claims.RunLost.class, lost -> {
                    assertThat(lost.seen().state()).isEqualTo(RunState.RUNNING);
                    assertThat(lost.seen().leaseOwner()).isEqualTo("ex-a");
                });
        assertThat(claims.claimExclusive(grant(job.id(), "no-such-run"), first, now))
                .as("no such run")
                .isEqualTo(new Claims.RunLost(null));

        assertThat(p.tx.write(List.of(p.jobs.markPaused(job.id(), job.owner(), first, null, now)))
                        .won())
                .isTrue();
        assertThat(claims.claimExclusive(grant(job.id(), second.runId()), first, now))
                .as("a paused job's run must not start")
                .isEqualTo(new Claims.JobLost(Optional.of(JobState.PAUSED)));
        assertThat(Fixture.run(p, job.id(), second.runId()).state())
                .as("nothing written by a lost claim")
                .isEqualTo(RunState.SCHEDULED);
    }
}
