package dev.punctual.core.service;

import dev.punctual.core.infra.PageKey;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * What stopping a job (a pause, a delete) does to its runs beside the job's own write: the pending run cancelled in
 * the same transaction, after a delete the runs that have not started cancelled too, and the answer held until no
 * run already committed to start can start any more. Used by {@link JobService} (delete) and {@link JobLifecycle}
 * (pause).
 */
public final class JobStops {
    private static final System.Logger LOG = System.getLogger(JobStops.class.getName());

    private final RunRepository runs;
    private final Clock clock;

    public JobStops(RunRepository runs, Clock clock) {
        this.runs = runs;
        this.clock = clock;
    }

    /**
     * Returns once no run of the job can start any more that the delete or pause just written does not stop: a run
     * claimed ahead of its instant, whose job was checked right after the claim, is let start at its instant with no
     * store call in between ({@code AttemptRunner}), so a delete or pause that lands after that check waits for the
     * instant (and {@link RunRepository#RELEASE_WINDOW} and {@link RunRepository#CLOCK_SKEW} more) before it
     * answers. At most about three seconds, and only when a run of the job is that close to its instant.
     */
    void awaitCommittedStarts(String jobId) {
        Instant now = clock.instant();
        Optional<Instant> until = runs.startsCommittedUntil(jobId, now);
        if (until.isEmpty()) {
            return;
        }
        // One sleep, from the clock, never a loop on it: a test's fixed clock would never get there.
        long ms = Duration.between(clock.instant(), until.get()).toMillis() + 1;
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(Math.min(ms, MAX_COMMITTED_WAIT.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The most {@link #awaitCommittedStarts} waits, whatever the store says. */
    static final Duration MAX_COMMITTED_WAIT = RunRepository.CLAIM_TOLERANCE
            .plus(RunRepository.RELEASE_WINDOW)
            .plus(RunRepository.CLOCK_SKEW.multipliedBy(2));

    /**
     * The cancel of the job's pending run, for the transaction that pauses or deletes the job, while that run is
     * still SCHEDULED. A run already sent (QUEUED) is left alone: its claim checks the job and will not start it.
     */
    Optional<Transactions.Write> cancelPending(Job job, Instant now, String why) {
        String pending = job.pendingRunId();
        if (pending == null
                || runs.get(job.id(), pending)
                        .filter(r -> r.state() == RunState.SCHEDULED)
                        .isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(runs.write(
                Change.of(Transition.CANCEL_SCHEDULED, job.id(), pending, now).withError(why)));
    }

    /**
     * How far back a delete looks for the job's runs that have not started: runs queued (the sweeper sends them up
     * to its lookahead ahead) and runs waiting for a retry are due within it. One older still waiting reads
     * {@code QUEUED} until its message comes, and is cancelled then, as every such run was before.
     */
    static final Duration CANCEL_LOOKBACK = Duration.ofMinutes(15);

    /**
     * Marks CANCELLED, now, the runs of a deleted job that will not start: those due from {@link #CANCEL_LOOKBACK}
     * ago on, not started (queued, or failed and waiting for a retry). Only after the delete has won: from then on
     * every claim fails on the job, so a run this misses (written a moment ago, or not found by the eventually
     * consistent query) is cancelled by the executor that receives it, and one claimed before the delete is RUNNING
     * and untouched (each write is conditional on the run not having started). A failure here changes nothing the
     * executor would not do anyway: it is logged, not answered.
     */
    void cancelUnstarted(String jobId, Instant now, String why) {
        RunRepository.RunRange unstarted = new RunRepository.RunRange(
                now.minus(CANCEL_LOOKBACK), null, Set.of(RunState.SCHEDULED, RunState.QUEUED, RunState.FAILED));
        try {
            PageKey start = null;
            do {
                RunRepository.PageOfRuns page = runs.listForJob(jobId, 100, start, unstarted);
                for (Run r : page.items()) {
                    runs.apply(Change.of(Transition.CANCEL_UNSTARTED, jobId, r.runId(), now)
                            .withError(why));
                }
                start = page.lastKey();
            } while (start != null);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "job " + jobId + ": its unstarted runs will read CANCELLED only when due", e);
        }
    }
}
