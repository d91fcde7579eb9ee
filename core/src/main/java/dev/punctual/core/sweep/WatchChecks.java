package dev.punctual.core.sweep;

import dev.punctual.core.job.Expectation;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.notify.JobOverdue;
import dev.punctual.core.notify.RunNotices;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.WatchRepository;
import dev.punctual.core.run.WatchRepository.Watch;
import dev.punctual.core.schedule.Schedules;
import dev.punctual.core.time.Window;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Checks the watches whose deadlines have come ({@link WatchRepository}): did a run of the job succeed in the
 * window? If not, the job is overdue: a {@link JobOverdue} notice is published (the bus, and the job's webhook when
 * it asks for {@code OVERDUE}). Either way the watch moves on to its next window, or ends.
 *
 * <p>The watch is moved (conditional on the entry read) before the notice is published: two sweeps at once publish
 * it once, and a sweeper that dies between the two publishes nothing for that window (as a run's outcome, at most
 * once; the next window is watched all the same). A paused job is not overdue: its watch starts again from now; a
 * resume arms it afresh. A COMPLETED job (no runs to come) gets one last verdict, then its watch ends. A job gone, or
 * no longer expecting anything, ends its watch silently.
 */
public final class WatchChecks {
    private static final System.Logger LOG = System.getLogger(WatchChecks.class.getName());

    /** Beyond a run's age and timeout: the lease, the kill's grace, the outcome's write and its retries. */
    static final Duration RUN_LIFE_MARGIN = Duration.ofMinutes(15);

    private final JobRepository jobs;
    private final RunRepository runs;
    private final WatchRepository watches;
    private final Schedules schedules;
    private final RunNotices notices;
    private final int perSweep;

    public WatchChecks(
            JobRepository jobs, RunRepository runs, WatchRepository watches, Schedules schedules, RunNotices notices) {
        this(jobs, runs, watches, schedules, notices, PER_SWEEP);
    }

    /** With at most {@code perSweep} watches checked a sweep (the default: {@link #PER_SWEEP}). */
    public WatchChecks(
            JobRepository jobs,
            RunRepository runs,
            WatchRepository watches,
            Schedules schedules,
            RunNotices notices,
            int perSweep) {
        this.perSweep = perSweep;
        this.jobs = jobs;
        this.runs = runs;
        this.watches = watches;
        this.schedules = schedules;
        this.notices = notices;
    }

    /** Watches checked at once: each check is three or four store calls, and none waits on another. */
    static final int IN_PARALLEL = 16;

    /**
     * The most watches one sweep checks, earliest deadlines first. The others keep their entries and hold the sweep's
     * watermark before them, so the next sweep goes on: thousands of watches due at one minute (a daily deadline
     * shared by many jobs) must not keep a sweeper Lambda past its timeout.
     */
    static final int PER_SWEEP = 2_000;

    /**
     * Checks each of {@code due} (deadline at or before {@code now}); how many jobs were found overdue. The deadline
     * of a watch whose check failed (the store), or that was left for the next sweep, goes to {@code failed}: its
     * bucket is swept again.
     */
    public int check(List<Watch> due, Instant now, Consumer<Instant> failed) {
        List<Watch> ordered = due.stream()
                .sorted(Comparator.comparing((Watch w) -> w.window().deadline()))
                .toList();
        List<Watch> checked = ordered.subList(0, Math.min(perSweep, ordered.size()));
        Queue<Instant> left = new ConcurrentLinkedQueue<>();
        ordered.subList(checked.size(), ordered.size())
                .forEach(w -> left.add(w.window().deadline()));
        AtomicInteger overdue = new AtomicInteger();
        Semaphore slots = new Semaphore(IN_PARALLEL);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Watch w : checked) {
                slots.acquireUninterruptibly();
                pool.execute(() -> {
                    try {
                        if (checkOne(w, now)) {
                            overdue.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, "checking the watch of job " + w.jobId() + " failed; it is retried", e);
                        left.add(w.window().deadline());
                    } finally {
                        slots.release();
                    }
                });
            }
        }
        // On this thread: the caller's set is not a concurrent one.
        left.forEach(failed);
        return overdue.get();
    }

    /** {@link #check(Watch, Instant)}; a watch that can never be checked is ended (a store failure is thrown). */
    private boolean checkOne(Watch w, Instant now) {
        try {
            return check(w, now);
        } catch (IllegalStateException broken) {
            // Never going to check: ended rather than holding every later sweep's watermark back.
            LOG.log(Level.ERROR, "the watch of job " + w.jobId() + " is ended: " + broken.getMessage());
            watches.end(w);
            return false;
        }
    }

    private boolean check(Watch w, Instant now) {
        Optional<Job> found = jobs.get(w.jobId(), true);
        if (found.isEmpty()
                || found.get().state() == JobState.DELETED
                || found.get().expect() == null) {
            watches.end(w);
            return false;
        }
        Job job = found.get();
        Expectation expect = job.expect();
        if (job.state() == JobState.PAUSED) {
            expect.first(now, schedules, job.updatedAt())
                    .ifPresentOrElse(next -> watches.move(w, next), () -> watches.end(w));
            return false;
        }
        Window window = w.window();
        // A run that finished in the window was due at most its age limit and its timeout before the window began.
        Instant dueFrom = window.since()
                .minus(job.firing().maxRunAge())
                .minusSeconds(job.timeoutSeconds())
                .minus(RUN_LIFE_MARGIN);
        Instant upTo = expect.every() != null ? now : window.deadline();
        Optional<Instant> success = runs.lastSuccess(job.id(), dueFrom, window.since(), upTo);
        Optional<Window> next = job.state() == JobState.COMPLETED
                ? Optional.empty()
                : expect.next(window, success, now, schedules, job.updatedAt());
        boolean moved = next.isPresent() ? watches.move(w, next.get()) : watches.end(w);
        if (!moved || success.isPresent()) {
            return false;
        }
        LOG.log(
                Level.WARNING,
                "job " + job.id() + " is OVERDUE: no run succeeded after " + window.since() + " by "
                        + window.deadline());
        notices.publish(JobOverdue.of(job, window.since(), window.deadline(), now));
        return true;
    }
}
