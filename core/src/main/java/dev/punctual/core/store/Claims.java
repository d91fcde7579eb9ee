package dev.punctual.core.store;

import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.job.JobState;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunItems;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The claim of a run whose job limits how many of its runs run at once ({@code overlap: forbid|queue}, at most
 * {@code maxConcurrency}), across the jobs and runs tables in one transaction: the named operation the executor needs, taking domain values and answering
 * which condition lost, so that the executor decides without a DynamoDB type. (A run that may overlap is claimed
 * with one conditional update of its own: {@link RunRepository#applyReturningNew}.)
 */
public final class Claims {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final Transactions tx;

    public Claims(JobRepository jobs, RunRepository runs, Transactions tx) {
        this.jobs = jobs;
        this.runs = runs;
        this.tx = tx;
    }

    /** How an exclusive claim came out. */
    public sealed interface Exclusive {}

    /** The run is this claim's: RUNNING, with the attempt and lease {@code grant} gave it. */
    public record Won() implements Exclusive {}

    /** The run's own condition failed: {@code seen} is the run as it was (null: there is no such run). */
    public record RunLost(Run seen) implements Exclusive {}

    /**
     * The job's condition failed: it may not run ({@code state}: PAUSED or DELETED; empty, no job), or its active
     * run is not the one expected any more (another run of it was claimed meanwhile: claim again).
     */
    public record JobLost(Optional<JobState> state) implements Exclusive {}

    /**
     * The job is full: every slot's run is RUNNING under a live lease ({@code active}: the run found in the slot the
     * claim tried, or the first slot's when none was free to try), so this run must not start beside them.
     */
    public record OverlapRunning(String active) implements Exclusive {}

    /** A slot of the job's that a claim takes ({@code index}), and the run it expects to find there (null: none). */
    public record Slot(int index, String seen) {}

    /**
     * The slot a claim of run {@code runId} of {@code job} (as read) tries: the one the run holds already (an attempt
     * after its first, the slot's run being itself), else an empty one within the job's limit, else one whose
     * run is not RUNNING under a live lease at {@code now}, read strongly slot by slot; empty when every slot's run
     * is (the job is full). A job of one slot (the default) gets slot 0 as read, with no read: the claim's
     * transaction checks that slot's run itself, and a run found there still running loses it.
     */
    public Optional<Slot> slotFor(Job job, String runId, Instant now) {
        List<String> active = job.activeRuns();
        int limit = job.firing().maxConcurrency();
        int own = active.indexOf(runId);
        if (own >= 0 && own < limit) {
            return Optional.of(new Slot(own, runId));
        }
        // From a random slot on: runs of one job claimed at once on several executors would otherwise all try the
        // same slot, and all but one lose the race (and, after a few, wait for their message to come back).
        int from = ThreadLocalRandom.current().nextInt(limit);
        for (int k = 0; k < limit; k++) {
            int i = (from + k) % limit;
            if (i >= active.size() || active.get(i) == null) {
                return Optional.of(new Slot(i, null));
            }
        }
        if (limit == 1) {
            return Optional.of(new Slot(0, active.getFirst()));
        }
        for (int k = 0; k < limit; k++) {
            int i = (from + k) % limit;
            String held = active.get(i);
            if (runs.get(job.id(), held).filter(r -> runningAt(r, now)).isEmpty()) {
                return Optional.of(new Slot(i, held));
            }
        }
        return Optional.empty();
    }

    private static boolean runningAt(Run r, Instant now) {
        return r.state() == RunState.RUNNING
                && r.leaseExpiry() != null
                && !r.leaseExpiry().isBefore(now);
    }

    /** Other transactions held the items, or no condition said why: nothing was written. */
    public record Conflict() implements Exclusive {}

    /**
     * Claims the run of {@code grant} (a {@link dev.punctual.core.run.Transition#CLAIM}) into {@code slot} of its job
     * ({@code job}: as read; null when it was not found) if the job may run, the slot is within its limit and still
     * holds {@code slot.seen()}, and that run is not RUNNING under a live lease at {@code now}; the slot's run
     * becomes this one. Two runs of one job claimed at once into one slot both expect the same run there, so at most
     * one wins. The runs in slots past the job's limit as read (left by a definition that allowed more, and no
     * longer taken by any claim) are checked too: while they run, the job is full.
     */
    public Exclusive claimExclusive(Change grant, Job job, Slot slot, Instant now) {
        List<TransactWriteItem> items = new ArrayList<>();
        items.add(jobs.takeSlot(grant.jobId(), slot.index(), slot.seen(), grant.runId()));
        int overlapFrom = items.size();
        Set<String> checked = new LinkedHashSet<>();
        if (slot.seen() != null) {
            checked.add(slot.seen());
        }
        if (job != null) {
            List<String> active = job.activeRuns();
            for (int i = job.firing().maxConcurrency(); i < active.size(); i++) {
                if (active.get(i) != null) {
                    checked.add(active.get(i));
                }
            }
        }
        checked.remove(grant.runId());
        List<String> checkedRuns = List.copyOf(checked);
        checkedRuns.forEach(run -> items.add(runs.conditionNotRunning(grant.jobId(), run, now)));
        int overlapTo = items.size();
        items.add(runs.write(grant));
        int runIndex = items.size() - 1;
        Transactions.Outcome o = tx.write(items);
        if (o.won()) {
            return new Won();
        }
        if (o.failed(runIndex)) {
            return new RunLost(RunItems.fromItem(o.oldItem(runIndex)));
        }
        if (o.failed(0)) {
            return new JobLost(JobRepository.stateOf(o.oldItem(0)));
        }
        for (int i = overlapFrom; i < overlapTo; i++) {
            if (o.failed(i)) {
                return new OverlapRunning(checkedRuns.get(i - overlapFrom));
            }
        }
        return new Conflict();
    }
}
