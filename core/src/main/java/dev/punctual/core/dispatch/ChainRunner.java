package dev.punctual.core.dispatch;

import dev.punctual.core.dispatch.Dispatcher.Count;
import dev.punctual.core.dispatch.Dispatcher.DispatchReport;
import dev.punctual.core.firing.CatchUp;
import dev.punctual.core.job.Job;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Run;
import dev.punctual.core.store.DispatchStore;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Works through one job's {@link Chain} in a dispatch, on one thread: first the index entries to attend to
 * ({@link StuckRuns}), then the SCHEDULED runs in due order, each caught up if it is late ({@link LateRuns}), sent,
 * and followed by its job's move to the next occurrence and its mark ({@link Successions}); an occurrence so made
 * that is due before the horizon takes its turn in the same chain.
 */
final class ChainRunner {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final DispatchStore store;
    private final Clock clock;
    private final JobReads reads;
    private final StuckRuns stuck;
    private final LateRuns late;
    private final Successions successions;

    ChainRunner(
            DispatchStore store, Clock clock, JobReads reads, StuckRuns stuck, LateRuns late, Successions successions) {
        this.store = store;
        this.clock = clock;
        this.reads = reads;
        this.stuck = stuck;
        this.late = late;
        this.successions = successions;
    }

    void run(
            Chain c,
            Instant horizon,
            Instant deadline,
            SendBatcher sends,
            DispatchReport report,
            AtomicReference<Throwable> fatal) {
        for (Run a : c.attend) {
            if (fatal.get() != null) {
                return;
            }
            if (clock.instant().isAfter(deadline)) {
                report.deferred(a);
                continue;
            }
            // Attending may move the job on: what was read of it before is stale then.
            c.known = null;
            stuck.attend(a, report)
                    .filter(next -> !next.scheduledAt().isAfter(horizon))
                    .ifPresent(c.work::add);
        }
        Run run;
        while ((run = c.work.poll()) != null) {
            if (fatal.get() != null) {
                return;
            }
            if (clock.instant().isAfter(deadline)) {
                report.deferred(run);
                continue;
            }
            if (run.scheduledAt().isBefore(clock.instant().minus(CatchUp.MISSED_AFTER))) {
                // Catch-up reads the job itself and may move it on: what this chain knew of it is stale then.
                c.known = null;
                c.moved = null;
                Optional<Run> kept = late.catchUp(run, c.keptFrom, report);
                if (kept.isEmpty() || kept.get().scheduledAt().isAfter(horizon)) {
                    continue;
                }
                run = kept.get();
            }
            // The job gives the message its firing policy as a hint, so the executor claims without a read of its
            // own (half a read unit an occurrence); the same job then decides the move, whose writes are
            // conditional on what was read.
            Optional<Job> job =
                    c.moved != null ? Optional.of(c.moved) : c.known != null ? c.known : reads.readQuietly(run);
            if (!sends.send(new RunMessage(
                    run.jobId(), run.runId(), run.scheduledAt(), JobReads.hint(job, run), JobReads.lane(job, run)))) {
                report.failed(run);
                continue;
            }
            report.count(Count.SENT);
            // The read serves the next step only: that step may move the job on, and a later run of the chain
            // (a backfill's, say) needs the job as it is after that: as this chain wrote it, or read again.
            c.known = null;
            if (fatal.get() != null) {
                // Another chain ended the dispatch: this run's message is out and it stays SCHEDULED, as a sweep
                // that died here would leave it; the next sweep sends it again and the claim absorbs the second.
                return;
            }
            try {
                Successions.Moved m =
                        successions.markAndMaterialize(run, job != null ? job : store.job(run.jobId()), report);
                c.moved = m.job();
                m.next().filter(next -> !next.scheduledAt().isAfter(horizon)).ifPresent(c.work::add);
            } catch (RuntimeException e) {
                // The message is out; the run stays SCHEDULED and a later sweep sends it again.
                LOG.log(Level.WARNING, "marking run " + run.jobId() + "/" + run.runId() + " failed", e);
                c.moved = null;
                report.failed(run);
            }
        }
    }
}
