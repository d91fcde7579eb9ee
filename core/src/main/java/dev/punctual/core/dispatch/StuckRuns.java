package dev.punctual.core.dispatch;

import dev.punctual.core.dispatch.Dispatcher.Count;
import dev.punctual.core.dispatch.Dispatcher.DispatchReport;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.job.Job;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunSender;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.store.DispatchStore;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The due index's other entries, those that are not SCHEDULED runs, once their attention time has come
 * ({@link #attend}): a run stuck without a message or without a live executor is sent again, a finished one leaves
 * the index.
 */
final class StuckRuns {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final DispatchStore store;
    private final RunSender queue;
    private final Clock clock;
    private final Duration agingStep;
    private final Successions successions;

    StuckRuns(DispatchStore store, RunSender queue, Clock clock, Duration agingStep, Successions successions) {
        this.store = store;
        this.queue = queue;
        this.clock = clock;
        this.agingStep = agingStep;
        this.successions = successions;
    }

    /**
     * An index entry that is not a SCHEDULED run, whose attention time has come. First the job must have moved on
     * to its next occurrence (a run claimed straight from SCHEDULED was never marked, so nobody wrote its
     * successor). Then, by the run's state now:
     * <ul>
     * <li>QUEUED or FAILED this late: its message is gone (a crash between write and send, an expired message):
     *     send it again;</li>
     * <li>RUNNING with an expired lease: its executor died and no message is coming back: send it again, and the
     *     next claim takes over with attempt + 1;</li>
     * <li>RUNNING with a live lease: look again after the lease plus the requeue timeout;</li>
     * <li>finished: leave the index.</li>
     * </ul>
     * A duplicate message sent here is harmless: the claim lets at most one attempt run.
     */
    Optional<Run> attend(Run seen, DispatchReport report) {
        try {
            Optional<Run> found = store.run(seen.jobId(), seen.runId());
            if (found.isEmpty()) {
                return Optional.empty();
            }
            Run run = found.get();
            if (run.state() == RunState.SCHEDULED) {
                // The index lagged; the base item is still SCHEDULED: send it like any other.
                return Optional.of(run);
            }
            Optional<Run> next = Optional.empty();
            Optional<Job> job = store.job(run.jobId());
            Optional<Succession> succession = successions.succession(run, job, clock.instant(), false);
            if (succession.isPresent()) {
                Successions.Written w = successions.write(succession.get());
                if (w.outcome() == DispatchStore.Outcome.CONFLICT) {
                    report.failed(run);
                    return Optional.empty();
                }
                if (w.outcome() == DispatchStore.Outcome.WON) {
                    report.count(Count.MATERIALIZED);
                    next = w.succession().next();
                }
            }
            Instant now = clock.instant();
            switch (run.state()) {
                case SUCCEEDED, DEAD, CANCELLED, SKIPPED ->
                    store.apply(Change.of(Transition.UNINDEX, run.jobId(), run.runId(), now));
                case QUEUED, FAILED -> resend(run, JobReads.lane(job, run), now, report);
                case RUNNING -> {
                    if (run.leaseExpiry() == null || run.leaseExpiry().isBefore(now)) {
                        resend(run, JobReads.lane(job, run), now, report);
                    } else {
                        store.apply(Change.of(Transition.LOOK_AFTER_LEASE, run, now));
                    }
                }
                default -> {}
            }
            return next;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "attending to run " + seen.jobId() + "/" + seen.runId() + " failed", e);
            report.failed(seen);
            return Optional.empty();
        }
    }

    /**
     * Sends a run that has not started again (its message lost, or still waiting behind others): into a lane up for
     * every aging step it has waited past its due time. Its first message may still be in its first lane; whichever
     * is received first claims the run, and the other finds it taken.
     */
    private void resend(Run run, Priority lane, Instant now, DispatchReport report) {
        Priority aged = lane.aged(Duration.between(run.scheduledAt(), now), agingStep);
        Set<Integer> sent = queue.sendBatch(
                List.of(new RunMessage(run.jobId(), run.runId(), run.scheduledAt(), null, aged)), clock.instant());
        if (sent.isEmpty()) {
            report.failed(run);
            return;
        }
        LOG.log(
                Level.INFO,
                "re-sent stuck run " + run.jobId() + "/" + run.runId() + " (" + run.state() + ", attempt "
                        + run.attempt() + ", lane " + aged.label() + ")");
        report.count(Count.RESENT);
        store.apply(Change.of(Transition.RESEND, run, now));
    }
}
