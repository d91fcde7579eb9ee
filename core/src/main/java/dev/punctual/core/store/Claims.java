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
import dev.punctual.core.tenant.TenantSlots;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The claim of a run whose job limits how many of its runs run at once ({@code overlap: forbid|queue}, at most
 * {@code maxConcurrency}), or whose tenant limits its running runs ({@link TenantSlots}), across the jobs and runs
 * tables in one transaction: the named operation the executor needs, taking domain values and answering
 * which condition lost, so that the executor decides without a DynamoDB type. (A run that may overlap is claimed
 * with one conditional update of its own: {@link RunRepository#applyReturningNew}.)
 */
public final class Claims {
    private final JobRepository jobs;
    private final RunRepository runs;
    private final Transactions tx;
    private final TenantSlots tenants;

    public Claims(JobRepository jobs, RunRepository runs, Transactions tx, TenantSlots tenants) {
        this.jobs = jobs;
        this.runs = runs;
        this.tx = tx;
        this.tenants = tenants;
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
     * The tenant is at its running {@code limit}: every slot of its holds a run RUNNING under a live lease, as far as
     * the claim looked ({@link #tenantSlotFor}); the run waits.
     */
    public record TenantFull(int limit) implements Exclusive {}

    /** Another claim took the tenant's slot first, or its run is RUNNING again: look again. */
    public record TenantSlotLost() implements Exclusive {}

    /**
     * A slot of {@code owner}'s that a claim takes ({@code index}), the holder it expects there ({@code seen}, null:
     * none) and the claim's own ({@code me}, with a token of its own), which {@link #release} gives back.
     */
    public record TenantSlot(String owner, int index, TenantSlots.Holder seen, TenantSlots.Holder me) {}

    /** How many holders' runs a claim reads when none of its tenant's slots is empty, before it calls them full. */
    static final int HOLDERS_LOOKED_AT = 3;

    /**
     * The slot of {@code owner}'s (whose limit is {@code limit}) that a claim of run {@code runId} of job
     * {@code jobId} tries: one that names this run already (an attempt whose slot was not given back), else an
     * empty one from a random one on, else, of up to {@value #HOLDERS_LOOKED_AT} holders taken at random, one whose
     * run is not RUNNING under a live lease at {@code now} (its executor stopped before giving the slot back). Empty:
     * the tenant is full, as far as that looked: a slot left behind by a stopped executor is found by a later look.
     * One read of every slot (eventually consistent: the claim's transaction checks what it took).
     */
    public Optional<TenantSlot> tenantSlotFor(String owner, int limit, String jobId, String runId, Instant now) {
        List<TenantSlots.Holder> held = tenants.read(owner, limit);
        TenantSlots.Holder me = new TenantSlots.Holder(jobId, runId, token());
        for (int i = 0; i < limit; i++) {
            TenantSlots.Holder h = held.get(i);
            if (h != null && h.jobId().equals(jobId) && h.runId().equals(runId)) {
                return Optional.of(new TenantSlot(owner, i, h, me));
            }
        }
        int from = ThreadLocalRandom.current().nextInt(limit);
        for (int k = 0; k < limit; k++) {
            int i = (from + k) % limit;
            if (held.get(i) == null) {
                return Optional.of(new TenantSlot(owner, i, null, me));
            }
        }
        for (int k = 0; k < Math.min(limit, HOLDERS_LOOKED_AT); k++) {
            int i = (from + k) % limit;
            TenantSlots.Holder h = held.get(i);
            if (runs.get(h.jobId(), h.runId()).filter(r -> runningAt(r, now)).isEmpty()) {
                return Optional.of(new TenantSlot(owner, i, h, me));
            }
        }
        return Optional.empty();
    }

    private static String token() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    /** Gives back a tenant's slot this claim took, if it still holds it (after the attempt's outcome). */
    public void release(TenantSlot slot) {
        tenants.release(slot.owner(), slot.index(), slot.me());
    }

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
        return claim(grant, job, slot, null, now);
    }

    /**
     * Claims the run of {@code grant} in one transaction with whichever limits apply: its job's ({@code slot}, as
     * {@link #claimExclusive}; null: its runs may overlap, and the job is checked after the claim) and its tenant's
     * ({@code tenant}: the slot to take, conditional on the holder seen there and, unless that is this run, on that
     * holder's run not being RUNNING under a live lease; null: no limit).
     */
    public Exclusive claim(Change grant, Job job, Slot slot, TenantSlot tenant, Instant now) {
        List<Transactions.Write> items = new ArrayList<>();
        int jobIndex = -1;
        if (slot != null) {
            jobIndex = items.size();
            items.add(jobs.takeSlot(grant.jobId(), slot.index(), slot.seen(), grant.runId()));
        }
        // Runs that must not be RUNNING under a live lease (each checked once: one item, one operation), and who
        // asked: the job's slots, or the tenant's.
        Set<List<String>> checked = new LinkedHashSet<>();
        List<Boolean> forTenant = new ArrayList<>();
        if (slot != null) {
            Set<String> ofJob = new LinkedHashSet<>();
            if (slot.seen() != null) {
                ofJob.add(slot.seen());
            }
            if (job != null) {
                List<String> active = job.activeRuns();
                for (int i = job.firing().maxConcurrency(); i < active.size(); i++) {
                    if (active.get(i) != null) {
                        ofJob.add(active.get(i));
                    }
                }
            }
            ofJob.remove(grant.runId());
            ofJob.forEach(run -> {
                checked.add(List.of(grant.jobId(), run));
                forTenant.add(false);
            });
        }
        int tenantIndex = -1;
        if (tenant != null) {
            tenantIndex = items.size();
            items.add(tenants.take(tenant.owner(), tenant.index(), tenant.seen(), tenant.me()));
            TenantSlots.Holder h = tenant.seen();
            // This run's own slot needs no check: its claim below is conditional on it not running already.
            if (h != null
                    && !(h.jobId().equals(grant.jobId()) && h.runId().equals(grant.runId()))
                    && checked.add(List.of(h.jobId(), h.runId()))) {
                forTenant.add(true);
            }
        }
        int checksFrom = items.size();
        List<List<String>> checkedRuns = List.copyOf(checked);
        checkedRuns.forEach(r -> items.add(runs.conditionNotRunning(r.get(0), r.get(1), now)));
        items.add(runs.write(grant));
        int runIndex = items.size() - 1;
        Transactions.Outcome o = tx.write(items);
        if (o.won()) {
            return new Won();
        }
        if (o.failed(runIndex)) {
            return new RunLost(RunItems.fromItem(o.oldItem(runIndex)));
        }
        if (jobIndex >= 0 && o.failed(jobIndex)) {
            return new JobLost(JobRepository.stateOf(o.oldItem(jobIndex)));
        }
        for (int i = checksFrom; i < runIndex; i++) {
            if (o.failed(i) && !forTenant.get(i - checksFrom)) {
                return new OverlapRunning(checkedRuns.get(i - checksFrom).get(1));
            }
        }
        if (tenantIndex >= 0 && o.failed(tenantIndex)) {
            return new TenantSlotLost();
        }
        for (int i = checksFrom; i < runIndex; i++) {
            if (o.failed(i)) {
                return new TenantSlotLost();
            }
        }
        return new Conflict();
    }
}
