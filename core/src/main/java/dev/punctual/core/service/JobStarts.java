package dev.punctual.core.service;

import dev.punctual.core.dispatch.Dispatcher;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.WatchRepository;
import dev.punctual.core.schedule.Schedules;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What a job set going (created, replaced, resumed) needs beside its own write: its watch armed afresh, and its
 * runs due before the next sweep sent at once. Used by {@link JobCreation}, {@link JobUpdate}, {@link JobLifecycle}
 * (a trigger's run, a resume's catch-up) and {@link JobBackfill}.
 */
public final class JobStarts {
    private static final System.Logger LOG = System.getLogger(JobStarts.class.getName());

    private final WatchRepository watches;
    private final Schedules schedules;
    private final Dispatcher dispatcher;
    private final Duration lookahead;

    /** {@code lookahead}: how far ahead the sweeper sends runs ({@code Settings.lookahead}). */
    public JobStarts(WatchRepository watches, Schedules schedules, Dispatcher dispatcher, Duration lookahead) {
        this.watches = watches;
        this.schedules = schedules;
        this.dispatcher = dispatcher;
        this.lookahead = lookahead;
    }

    /**
     * The write that arms {@code job}'s watch from {@code now}: its expectation's first window, replacing any earlier
     * watch. Empty when it expects nothing, or has no deadline left.
     */
    Optional<Transactions.Write> armWatch(Job job, Instant now) {
        return job.expect() == null
                ? Optional.empty()
                : job.expect().first(now, schedules, job.updatedAt()).map(w -> watches.arm(job.id(), w));
    }

    /**
     * Sends at once those of {@code pending} (runs just written SCHEDULED) due before the next sweep could reach
     * them, so "now" is not a sweep period late. If that fails, each stays SCHEDULED in a bucket the sweeper has not
     * passed, and the next sweep sends it.
     */
    void dispatchSoon(List<Run> pending, Instant now) {
        Instant horizon = now.plus(lookahead);
        List<Run> soon =
                pending.stream().filter(r -> !r.scheduledAt().isAfter(horizon)).toList();
        if (soon.isEmpty()) {
            return;
        }
        try {
            dispatcher.dispatch(soon, horizon);
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "immediate dispatch of " + soon.size() + " runs of "
                            + soon.stream().map(Run::jobId).distinct().toList()
                            + " failed; the sweeper will send them",
                    e);
        }
    }
}
