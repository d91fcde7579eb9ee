package dev.punctual.core.exec;

import dev.punctual.core.job.JobRepository;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.Transition;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Makes the store calls a run makes, about items that cannot exist, before an executor takes its first run: a JVM
 * runs the AWS SDK's long call path interpreted, then compiled, and a call costs it about three times as much CPU
 * over its first thousand calls as later ({@code bin/bench calls}: 700–850 µs after 340 calls, 270–350 after
 * 3,000). An executor started to take a burst would otherwise pay that in the burst, where its CPU is what binds.
 *
 * <p>The calls read jobs and claim runs of the job id {@value #JOB_ID}, which no job has (a job's id is {@code job_}
 * and 20 base32 characters, {@code service/Ids}): the reads find nothing, and each claim loses on its condition (no
 * such run), so nothing is written. On AWS each call is billed as a read of nothing (half a read unit) or a
 * conditional write that failed (one write unit a statement).
 */
public final class Priming {
    private static final System.Logger LOG = System.getLogger(Priming.class.getName());
    /** A job id no job has. */
    static final String JOB_ID = "~priming";
    /** Items a batched call names, as the executor's shared calls carry under load (its run slots, by default). */
    static final int BATCH = 4;

    private Priming() {}

    /**
     * Makes {@code calls} calls, a third each of strong job reads, batched strong job reads and batched claims;
     * stops early at the first failure (the executor then starts anyway: priming is only worth its CPU). Returns
     * how many were made.
     */
    public static int prime(JobRepository jobs, RunRepository runs, Clock clock, String executorId, int calls) {
        long started = System.nanoTime();
        int made = 0;
        try {
            for (; made < calls; made++) {
                switch (made % 3) {
                    case 0 -> requireNothing(jobs.get(JOB_ID + made, true).isEmpty(), "a job");
                    case 1 -> requireNothing(jobs.getAll(ids(made)).isEmpty(), "a job");
                    default -> {
                        Instant now = clock.instant();
                        List<Change> claims = new ArrayList<>();
                        for (String runId : ids(made)) {
                            claims.add(Change.of(Transition.CLAIM, JOB_ID, runId, now)
                                    .withLease(executorId, now.plus(Duration.ofSeconds(1))));
                        }
                        for (RunRepository.Applied a : runs.applyAll(claims, Collections.nCopies(BATCH, true))) {
                            if (a.error() != null) {
                                throw a.error();
                            }
                            requireNothing(!a.result().won(), "a run");
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "priming stopped after " + made + " calls; the executor starts unprimed", e);
        }
        LOG.log(
                Level.INFO,
                "primed the store calls with " + made + " calls in "
                        + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
        return made;
    }

    private static List<String> ids(int call) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < BATCH; i++) {
            ids.add(JOB_ID + call + "-" + i);
        }
        return ids;
    }

    private static void requireNothing(boolean nothing, String what) {
        if (!nothing) {
            // Someone made an item of an id the API never gives: stop rather than touch it.
            throw new IllegalStateException("priming found " + what + " under " + JOB_ID);
        }
    }
}
