package dev.punctual.core.exec;

import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.config.Settings;
import dev.punctual.core.firing.FiringPolicy;
import dev.punctual.core.firing.Overlap;
import dev.punctual.core.infra.Items;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobRepository;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.queue.RunQueue;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.RunState;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Handles one message: claim the run, run its binary, record the outcome, and settle the message (delete it, or
 * make it visible again after the retry backoff). The claim is the only way a run starts, and the attempt number it
 * grants fences every later write of this executor.
 */
public final class RunWorker {
    private static final System.Logger LOG = System.getLogger(RunWorker.class.getName());
    public static final String SHUTDOWN = "executor shutting down";
    public static final String FENCED = "lease lost to another executor";
    public static final String SELF_FENCED = "lease could not be renewed before it expired";

    private final RunRepository runs;
    private final JobRepository jobs;
    private final Transactions tx;
    private final RunQueue queue;
    private final ArtifactStore store;
    private final BinaryCache cache;
    private final ProcessRunner runner;
    private final Backoff backoff;
    private final Settings settings;
    private final Clock clock;
    private final String executorId;
    private final Path workRoot;
    private final Sandbox sandbox;
    private final ScheduledExecutorService timer;
    /**
     * The runs' watches ({@link RunWatch}) on a thread of their own: a run that fills its directory with a million
     * files makes its own disk scan slow, and must not delay another run's heartbeat into self-fencing.
     */
    private final ScheduledExecutorService watchTimer;
    /** Kills a run from outside this JVM when its lease was not renewed in time ({@link Supervisor}). */
    private final Supervisor supervisor;

    private final Map<String, ProcessRunner.Handle> running = new ConcurrentHashMap<>();

    public RunWorker(
            RunRepository runs,
            JobRepository jobs,
            Transactions tx,
            RunQueue queue,
            ArtifactStore store,
            BinaryCache cache,
            ProcessRunner runner,
            Backoff backoff,
            Settings settings,
            Clock clock,
            String executorId,
            Path workRoot,
            ScheduledExecutorService timer) {
        this.runs = runs;
        this.jobs = jobs;
        this.tx = tx;
        this.queue = queue;
        this.store = store;
        this.cache = cache;
        this.runner = runner;
        this.backoff = backoff;
        this.settings = settings;
        this.clock = clock;
        this.executorId = executorId;
        this.workRoot = workRoot;
        this.sandbox = Sandbox.create(settings.sandbox());
        this.timer = timer;
        try {
            this.supervisor = new Supervisor(workRoot.resolveSibling("deadlines"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        this.watchTimer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("run-watch-" + executorId).factory());
    }

    public String executorId() {
        return executorId;
    }

    /** What happened to one message. */
    public enum Outcome {
        SUCCEEDED,
        FAILED,
        DEAD,
        RELEASED,
        FENCED,
        EARLY,
        POISON,
        CANCELLED,
        ALREADY_DONE,
        LEASED_ELSEWHERE,
        CONFLICT,
        /** Not started: an earlier run of the job is still running and the job says {@code overlap: forbid}. */
        SKIPPED,
        /** Not started yet: an earlier run of the job is still running and the job says {@code overlap: queue}. */
        WAITING,
        /** Not started within the job's {@code maxRunAge}: DEAD. */
        EXPIRED
    }

    /** How often a run held back by {@code overlap: queue} looks again whether the running one has finished. */
    public static final Duration OVERLAP_POLL = Duration.ofSeconds(5);
    /** The longest SQS lets a received message stay invisible (ChangeMessageVisibility's maximum). */
    static final Duration MAX_VISIBILITY = Duration.ofHours(12);
    /** The error of a run the executor refused to launch (see {@link LaunchCheck}); the problems follow. */
    public static final String REFUSED = "refused to start: ";

    private static final int CLAIM_RACES = 3;

    public Outcome handle(Message message) throws InterruptedException {
        RunMessage m;
        try {
            m = RunMessage.decode(message.body());
        } catch (IllegalArgumentException e) {
            // Left alone: after maxReceiveCount receives the queue's redrive policy moves it to the DLQ.
            LOG.log(Level.WARNING, "poison message " + message.messageId() + ": " + e.getMessage());
            return Outcome.POISON;
        }
        Duration early = Duration.between(clock.instant(), m.scheduledAt());
        if (early.toMillis() > 1000) {
            hideUntil(message, m.scheduledAt(), clock.instant());
            return Outcome.EARLY;
        }
        // SQS delays have whole-second granularity and were rounded down: wait out the rest, so a run never starts
        // before its due instant. (The message's due time is only a hint: the claim checks the run's own.)
        waitUntil(m.scheduledAt());

        for (int race = 0; race < CLAIM_RACES; race++) {
            // Read once per try: its firing policy decides the claim, its active run is what the claim expects,
            // and its binary, args and env are what runs (as of the claim, give or take this read).
            Optional<Job> job = jobs.get(m.jobId());
            FiringPolicy policy = job.map(Job::firing).orElse(FiringPolicy.DEFAULT);
            Instant now = clock.instant();
            if (race == 0
                    && now.isAfter(m.scheduledAt().plus(policy.maxRunAge()))
                    && expired(message, m, policy, now)) {
                return Outcome.EXPIRED;
            }
            Claim c = claim(m, policy, job.map(Job::activeRunId).orElse(null), now);
            Transactions.Outcome claim = tx.write(c.items());
            if (claim.won()) {
                // Read back through a passing store outage: the claim is ours until its lease ends, and giving up
                // here would leave an attempt spent that never started its binary.
                Run run = whileHeld(
                                new AtomicReference<>(now.plus(settings.lease())),
                                "reading back the claimed run " + m.jobId() + "/" + m.runId(),
                                Integer.MAX_VALUE,
                                () -> runs.get(m.jobId(), m.runId()))
                        .orElseThrow();
                if (run.state() != RunState.RUNNING || !executorId.equals(run.leaseOwner())) {
                    // Frozen between the claim and this read, long enough for the lease to pass to another
                    // executor: the attempt read back is theirs, not ours. The message is theirs too now.
                    LOG.log(
                            Level.WARNING,
                            "run " + m.jobId() + "/" + m.runId() + " was taken over by " + run.leaseOwner()
                                    + " right after our claim");
                    return Outcome.FENCED;
                }
                if (settings.emfMetrics()) {
                    System.out.println(FiringMetrics.latenessLine(
                            settings.prefix(), Duration.between(run.scheduledAt(), now), now));
                }
                return execute(message, run, job.orElseThrow());
            }
            Outcome lost = lostClaim(message, m, claim, c, policy, now);
            if (lost != null) {
                return lost;
            }
            // The job's active run changed between our read and our claim (another run of it started): again.
        }
        return Outcome.CONFLICT;
    }

    /**
     * The claim transaction: the job may run (not PAUSED or DELETED) and the run is claimable. Under
     * {@code overlap: forbid|queue} the job's active run must also not be RUNNING under a live lease, and becomes
     * this run: two runs of one job claimed at once expect the same active run, so at most one wins.
     */
    private Claim claim(RunMessage m, FiringPolicy policy, String active, Instant now) {
        TransactWriteItem grant = runs.claim(m.jobId(), m.runId(), executorId, now.plus(settings.lease()), now);
        if (policy.overlap() == Overlap.ALLOW) {
            return new Claim(List.of(jobs.conditionRunnable(m.jobId()), grant), -1, null);
        }
        List<TransactWriteItem> items = new ArrayList<>();
        items.add(jobs.takeActiveRun(m.jobId(), active, m.runId()));
        int overlapIndex = -1;
        if (active != null && !active.equals(m.runId())) {
            overlapIndex = items.size();
            items.add(runs.conditionNotRunning(m.jobId(), active, now));
        }
        items.add(grant);
        return new Claim(items, overlapIndex, active);
    }

    /** A claim's items: the job's check first, the run's grant last, and where the overlap check is (-1: none). */
    private record Claim(List<TransactWriteItem> items, int overlapIndex, String active) {
        int runIndex() {
            return items.size() - 1;
        }
    }

    /** Whether the run has waited longer than the job's maxRunAge; if so it is now DEAD and the message gone. */
    private boolean expired(Message message, RunMessage m, FiringPolicy policy, Instant now) {
        Optional<Run> run = runs.get(m.jobId(), m.runId());
        if (run.isEmpty()
                || run.get().state().terminal()
                || !now.isAfter(run.get().dueSince().plus(policy.maxRunAge()))) {
            return false;
        }
        String why = "not started within maxRunAge " + policy.maxRunAge() + " of becoming due at "
                + run.get().dueSince();
        if (!runs.markDeadLettered(run.get(), why, now, now.plus(settings.retention()))) {
            // Running under a live lease, or it moved on meanwhile: not ours to end.
            return false;
        }
        LOG.log(Level.INFO, "run " + m.jobId() + "/" + m.runId() + " " + why);
        queue.delete(message.receiptHandle());
        return true;
    }

    /** What a lost claim means; null: a race on the job's active run, to be tried again. */
    private Outcome lostClaim(
            Message message, RunMessage m, Transactions.Outcome claim, Claim c, FiringPolicy policy, Instant now) {
        if (claim.failed(c.runIndex())) {
            Map<String, AttributeValue> old = claim.oldItem(c.runIndex());
            if (old == null || RunState.valueOf(Items.str(old, "state")).terminal()) {
                // Finished (or never existed): this is a duplicate delivery.
                queue.delete(message.receiptHandle());
                return Outcome.ALREADY_DONE;
            }
            Run seen = RunRepository.fromItem(old);
            boolean leasedNow = seen.state() == RunState.RUNNING
                    && seen.leaseExpiry() != null
                    && seen.leaseExpiry().isAfter(now);
            if (!leasedNow && seen.attempt() >= seen.maxAttempts()) {
                if (seen.state() == RunState.RUNNING && seen.launchedAt() == null && runs.giveBack(seen, now)) {
                    // The last attempt's executor stopped before it started the binary: that attempt did not run,
                    // and is given back. Claim again.
                    LOG.log(
                            Level.INFO,
                            "run " + seen.jobId() + "/" + seen.runId() + ": attempt " + seen.attempt()
                                    + " never started its binary; given back");
                    return null;
                }
                return exhausted(message, seen, now);
            }
            Instant due = seen.scheduledAt();
            if (!RunRepository.dueForClaim(due, now)) {
                // The message says the run is due; the run says it is not (a forged or misdirected message, one
                // sent before an update moved the run later, or a clock ahead). The message is kept, invisible
                // until the run's due time, rather than deleted: if it is the run's real message, nothing else
                // would bring the run back before the sweeper's requeue timeout. If the run is moved meanwhile,
                // this message is merely early again or a spare copy: moving a run later or earlier only
                // happens while it is SCHEDULED, and the dispatcher then sends a message of its own, and
                // whichever claim comes first at the due time wins. A run due more than 12 hours ahead comes
                // back and is hidden again; every time counts as a receive towards the queue's maxReceiveCount.
                LOG.log(
                        Level.WARNING,
                        "message for " + m.jobId() + "/" + m.runId() + " says due at " + m.scheduledAt()
                                + ", but the run is due at " + due + ": hidden until then");
                hideUntil(message, due, now);
                return Outcome.EARLY;
            }
            // Another executor holds a live lease; if it dies, this message brings the run back after the lease.
            return Outcome.LEASED_ELSEWHERE;
        }
        if (claim.failed(0)) {
            Map<String, AttributeValue> job = claim.oldItem(0);
            String state = job == null ? null : Items.str(job, "state");
            if ("ACTIVE".equals(state) || "COMPLETED".equals(state)) {
                return null;
            }
            // The job was deleted or paused while this run waited in the queue: it must not start.
            String reason = "PAUSED".equals(state) ? "job paused" : "job deleted";
            runs.cancelUnstarted(m.jobId(), m.runId(), reason, now, now.plus(settings.retention()));
            queue.delete(message.receiptHandle());
            return Outcome.CANCELLED;
        }
        if (c.overlapIndex() >= 0 && claim.failed(c.overlapIndex())) {
            return overlapping(message, m, c.active(), policy, now);
        }
        return Outcome.CONFLICT;
    }

    /**
     * The run has used every attempt, yet a message brought it back: its last attempt's executor stopped without an
     * outcome (crashed, froze, or lost its lease), which counts as a failed attempt. It ends DEAD, saying so.
     */
    private Outcome exhausted(Message message, Run seen, Instant now) {
        String why = seen.state() == RunState.RUNNING
                ? "attempt " + seen.attempt() + " of " + seen.maxAttempts() + " ended without an outcome (its "
                        + "executor " + seen.leaseOwner() + " stopped: crashed, froze or lost its lease), and no "
                        + "attempt is left"
                : "no attempt is left (" + seen.attempt() + " of " + seen.maxAttempts() + " used)";
        if (!runs.markDeadLettered(seen, why, now, now.plus(settings.retention()))) {
            return Outcome.CONFLICT;
        }
        LOG.log(Level.INFO, "run " + seen.jobId() + "/" + seen.runId() + " is DEAD: " + why);
        queue.delete(message.receiptHandle());
        return Outcome.DEAD;
    }

    /** The job's run {@code active} is still running: skip this one (forbid) or look again shortly (queue). */
    private Outcome overlapping(Message message, RunMessage m, String active, FiringPolicy policy, Instant now) {
        if (policy.overlap() == Overlap.QUEUE) {
            // The re-sent messages carry the time of the next look, not the run's due time, so the age is
            // checked against the run itself here.
            if (expired(message, m, policy, now)) {
                return Outcome.EXPIRED;
            }
            // A fresh message rather than a longer invisibility: a long wait must not count towards the queue's
            // maxReceiveCount and end in the dead-letter queue. Sent before the delete: a crash in between
            // leaves a duplicate, which the claim makes harmless.
            queue.sendBatch(List.of(new RunMessage(m.jobId(), m.runId(), now.plus(OVERLAP_POLL))), now);
            queue.delete(message.receiptHandle());
            return Outcome.WAITING;
        }
        if (runs.endUnstarted(
                m.jobId(),
                m.runId(),
                RunState.SKIPPED,
                "run " + active + " of this job was still running (overlap: forbid)",
                now,
                now.plus(settings.retention()))) {
            queue.delete(message.receiptHandle());
            return Outcome.SKIPPED;
        }
        return Outcome.CONFLICT;
    }

    /**
     * Makes the message invisible until {@code due} (whole seconds, rounded down so it comes back in the due
     * second, where the claim may win and the rest is waited out; at least one second, at most SQS's maximum).
     */
    private void hideUntil(Message message, Instant due, Instant now) {
        long seconds = Math.max(
                1,
                Math.min(MAX_VISIBILITY.toSeconds(), Duration.between(now, due).toSeconds()));
        queue.changeVisibility(message.receiptHandle(), (int) seconds);
    }

    /** Sleeps until {@code due} by this executor's clock (rounded up to the next millisecond); at once if past. */
    private void waitUntil(Instant due) throws InterruptedException {
        Duration rest = Duration.between(clock.instant(), due);
        if (rest.toNanos() > 0) {
            Thread.sleep((rest.toNanos() + 999_999) / 1_000_000);
        }
    }

    private Outcome execute(Message message, Run run, Job job) throws InterruptedException {
        int attempt = run.attempt();
        String logKey = ArtifactStore.logKey(run.jobId(), run.runId(), attempt);
        Path workDir = null;
        Path logFile = null;
        ProcessRunner.Handle handle = null;
        Sandbox.Lease lease = null;
        ScheduledFuture<?> beat = null;
        // Until when this executor's attempt surely holds the run: its lease as last renewed. The result is
        // retried until then; after it, another executor may have taken the run over.
        AtomicReference<Instant> held = new AtomicReference<>(run.leaseExpiry());
        ScheduledFuture<?> watching = null;
        String supervised = null;
        // What the job asked for, within this executor's maxima (the API checked against its own, which an
        // operator may have set higher than this executor's).
        RunLimits limits = job.limits().within(settings.limits());
        Integer exitCode = null;
        String error;
        String killed = null;
        boolean retryable = true;
        List<String> refused = new ArrayList<>(LaunchCheck.problems(job));
        // Secret values are read only here, by key, at the last moment: they are in no index and no job read.
        Map<String, String> secrets = job.secretNames().isEmpty() ? Map.of() : jobs.secrets(job.id());
        refused.addAll(LaunchCheck.variables("secrets", secrets));
        if (!refused.isEmpty()) {
            // The job as stored is not one the API would have accepted: it was changed behind the API's back.
            // Retrying cannot help, so the run is DEAD at once, with what was refused.
            LOG.log(Level.WARNING, "run " + run.jobId() + "/" + run.runId() + " " + REFUSED + refused);
            String shown = String.join("; ", refused.subList(0, Math.min(5, refused.size())))
                    + (refused.size() > 5 ? "; and " + (refused.size() - 5) + " more" : "");
            return whileHeld(
                    held,
                    "recording the refusal of " + run.jobId() + "/" + run.runId(),
                    Integer.MAX_VALUE,
                    () -> settle(message, run, null, REFUSED + shown, null, false, false));
        }
        // The claim may win up to CLAIM_TOLERANCE before the run's due time (it checks whole seconds, and the
        // message's due time, waited out before the claim, may not be the run's): the binary never starts early.
        waitUntil(run.scheduledAt());
        try {
            Path binary = cache.fetch(job.owner(), job.binarySha256());
            if (sandbox.active()) {
                lease = sandbox.open(binary, job.binarySha256());
                workDir = lease.dir();
                binary = lease.binary();
            } else {
                workDir = Files.createTempDirectory(Files.createDirectories(workRoot), "run-");
            }
            // The log is the executor's, out of the binary's reach when it runs as its own user.
            logFile = Files.createDirectories(workRoot).resolve(workDir.getFileName() + ".log");
            Map<String, String> env = new LinkedHashMap<>(job.env());
            env.putAll(secrets);
            env.put("SCHEDULER_JOB_ID", run.jobId());
            env.put("SCHEDULER_RUN_ID", run.runId());
            env.put("SCHEDULER_ATTEMPT", Integer.toString(attempt));
            env.put("SCHEDULER_SCHEDULED_AT", run.scheduledAt().toString());
            // The same for every attempt of this occurrence: a binary can make its side effects idempotent on it.
            env.put("SCHEDULER_IDEMPOTENCY_KEY", run.jobId() + "@" + run.occurrence());
            // The last moment to find out that this executor was frozen past its lease since the claim (the binary
            // download can take a while too): renewing it now, conditionally on our attempt, proves the run is
            // still ours, and starts the binary under a full lease.
            // A store error here is tried again while the lease lasts: counted as a failed start, it would spend
            // an attempt whose binary never ran (found by the fault suite: an always-failing job ended DEAD at an
            // attempt that never started, its pre-start renewal caught in an outage).
            Instant[] renewedAt = new Instant[1];
            boolean ours;
            try {
                ours = whileHeld(
                        held,
                        "renewing the lease of " + run.jobId() + "/" + run.runId() + " before its start",
                        Integer.MAX_VALUE,
                        () -> {
                            renewedAt[0] = clock.instant();
                            return runs.launch(
                                    run.jobId(),
                                    run.runId(),
                                    attempt,
                                    executorId,
                                    renewedAt[0].plus(settings.lease()),
                                    renewedAt[0]);
                        });
            } catch (RuntimeException e) {
                // The lease ran out while the store was unreachable: we cannot tell whether the run is still ours.
                ours = false;
            }
            if (!ours) {
                killed = FENCED;
                throw new FencedBeforeStart();
            }
            held.set(renewedAt[0].plus(settings.lease()));
            handle = runner.start(
                    binary,
                    job.args(),
                    env,
                    workDir,
                    logFile,
                    new ProcessRunner.Confinement(
                            lease == null ? null : lease.uid(), limits, sandbox.privateNetwork()));
            running.put(run.jobId() + "/" + run.runId(), handle);
            String name = run.jobId() + "." + run.runId() + "." + attempt;
            supervised = name;
            Integer uid = lease == null ? null : lease.uid();
            long group = handle.pid();
            try {
                supervisor.arm(name, group, uid, supervisorDeadline(held.get()));
            } catch (IOException e) {
                // The binary runs already: it must be awaited whatever happens here. Self-fencing still holds it.
                LOG.log(Level.WARNING, "run " + name + " has no supervisor", e);
            }
            beat = startHeartbeat(message, run, handle, held, expiry -> {
                try {
                    supervisor.extend(name, group, uid, supervisorDeadline(expiry));
                } catch (IOException e) {
                    LOG.log(Level.WARNING, "cannot move the supervisor's deadline of " + name, e);
                }
            });
            Sandbox.Lease box = lease;
            Path dir = workDir;
            RunWatch watch =
                    new RunWatch(limits, box == null ? () -> Sandbox.sizeOf(dir) : () -> sandbox.diskUsed(box), handle);
            watching = watchTimer.scheduleAtFixedRate(
                    watch::check, RunWatch.PERIOD.toMillis(), RunWatch.PERIOD.toMillis(), TimeUnit.MILLISECONDS);
            ProcessRunner.Result result = handle.await(Duration.ofSeconds(job.timeoutSeconds()));
            exitCode = result.exitCode();
            killed = result.killedBecause();
            if (supervisor.disarm(name) && exitCode == 128 + 9) {
                // This JVM was frozen or starved past the deadline: the supervisor killed the binary before the
                // lease could pass on. The attempt is not ours to record. (A binary that had exited by itself
                // before that is recorded as usual: the write is fenced on our attempt, so it only wins if no
                // other executor has taken the run over. Found by the chaos run: two runs that had exited 0
                // while their executor was frozen were run again for nothing.)
                killed = SELF_FENCED;
            }
            error = killed != null ? killed : exitCode == 0 ? null : "exited with code " + exitCode;
            String limit = killed == null && exitCode != 0 ? RunWatch.explainExit(exitCode, limits) : null;
            if (limit != null) {
                error += ": " + limit;
            }
            if (killed == null && job.nonRetryableExitCodes().contains(exitCode)) {
                // The job says retrying cannot help with this exit code: dead at once, attempts left or not.
                retryable = false;
                error += " (non-retryable)";
            }
        } catch (FencedBeforeStart e) {
            error = FENCED;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "run " + run.jobId() + "/" + run.runId() + " could not start", e);
            error = "could not start: " + e.getMessage();
        } finally {
            if (supervised != null) {
                supervisor.disarm(supervised);
            }
            if (watching != null) {
                watching.cancel(false);
            }
            running.remove(run.jobId() + "/" + run.runId());
            if (lease != null) {
                sandbox.close(lease);
            }
        }
        // The heartbeat goes on until the outcome is recorded: while the log is uploaded and the result written
        // (retried through a passing outage), the run stays ours.
        try {
            String storedLog = uploadLog(logKey, logFile, held);
            deleteQuietly(workDir, logFile);
            if (FENCED.equals(killed) || SELF_FENCED.equals(killed)) {
                // Not ours to record any more (or we cannot tell): the lease expires, and the message or the
                // sweeper brings the run back as a new attempt.
                return Outcome.FENCED;
            }
            Integer code = exitCode;
            String err = error;
            boolean again = retryable;
            boolean released = SHUTDOWN.equals(killed);
            return whileHeld(
                    held,
                    "recording the outcome of " + run.jobId() + "/" + run.runId(),
                    Integer.MAX_VALUE,
                    () -> settle(message, run, code, err, storedLog, released, again));
        } finally {
            if (beat != null) {
                beat.cancel(false);
            }
        }
    }

    /** The first wait before a write is tried again, and the longest. */
    static final Duration RETRY_FIRST = Duration.ofMillis(100);

    static final Duration RETRY_MOST = Duration.ofSeconds(5);

    /**
     * {@code call}, tried again with backoff (at most {@code maxTries} times) while it fails and this executor's
     * lease ({@code held}, which the heartbeat extends) lasts past the next try; the last failure is thrown. A binary
     * that exited is run again only if its outcome could not be recorded before the lease could pass to another
     * executor: a store outage shorter than that costs nothing.
     */
    private <T> T whileHeld(
            AtomicReference<Instant> held, String what, int maxTries, java.util.function.Supplier<T> call)
            throws InterruptedException {
        Duration wait = RETRY_FIRST;
        for (int tries = 1; ; tries++) {
            try {
                return call.get();
            } catch (RuntimeException e) {
                // The last try must be over before the lease is: leave it RETRY_FIRST of room.
                long left = Duration.between(clock.instant(), held.get())
                        .minus(RETRY_FIRST)
                        .toMillis();
                if (left <= 0 || tries >= maxTries) {
                    LOG.log(Level.WARNING, what + " failed " + tries + " times; giving up", e);
                    throw e;
                }
                long sleep = Math.min(wait.toMillis(), left);
                LOG.log(Level.WARNING, what + " failed (try " + tries + "), trying again in " + sleep + " ms: " + e);
                Thread.sleep(sleep);
                wait = wait.multipliedBy(2).compareTo(RETRY_MOST) > 0 ? RETRY_MOST : wait.multipliedBy(2);
            }
        }
    }

    private Outcome settle(
            Message message,
            Run run,
            Integer exitCode,
            String error,
            String logKey,
            boolean released,
            boolean retryable) {
        Instant now = clock.instant();
        Instant expires = now.plus(settings.retention());
        int attempt = run.attempt();
        if (error == null) {
            if (!runs.finish(
                    run.jobId(),
                    run.runId(),
                    attempt,
                    executorId,
                    RunState.SUCCEEDED,
                    exitCode,
                    null,
                    logKey,
                    now,
                    expires,
                    null,
                    run.queuedAt() == null)) {
                return Outcome.FENCED;
            }
            queue.delete(message.receiptHandle());
            return Outcome.SUCCEEDED;
        }
        boolean dead = !released && (!retryable || attempt >= run.maxAttempts());
        RunState to = dead ? RunState.DEAD : RunState.FAILED;
        if (!runs.finish(
                run.jobId(),
                run.runId(),
                attempt,
                executorId,
                to,
                exitCode,
                error,
                logKey,
                now,
                expires,
                run.owner(),
                run.queuedAt() == null,
                released)) {
            return Outcome.FENCED;
        }
        if (dead) {
            queue.delete(message.receiptHandle());
            return Outcome.DEAD;
        }
        int delay = released ? 0 : (int) Math.max(1, backoff.after(attempt).toSeconds());
        queue.changeVisibility(message.receiptHandle(), delay);
        return released ? Outcome.RELEASED : Outcome.FAILED;
    }

    /**
     * Extends the DynamoDB lease and the message's invisibility together. A lost heartbeat (another executor took
     * the run after our lease expired) kills our process: the newer attempt owns the run now.
     */
    /** The wall-clock instant (ms) at which the supervisor kills a run whose lease ends at {@code leaseEnd}. */
    private long supervisorDeadline(Instant leaseEnd) {
        // The lease is in this executor's clock; the supervisor reads the wall clock.
        Duration left = Duration.between(clock.instant(), leaseEnd).minus(Supervisor.margin(settings.lease()));
        return System.currentTimeMillis() + left.toMillis();
    }

    /** Stops the supervisor and the watches (the executor is stopping; no run is left to watch). */
    public void close() {
        supervisor.close();
        watchTimer.shutdownNow();
    }

    private ScheduledFuture<?> startHeartbeat(
            Message message,
            Run run,
            ProcessRunner.Handle handle,
            AtomicReference<Instant> held,
            java.util.function.Consumer<Instant> renewed) {
        long period = settings.heartbeat().toMillis();
        return timer.scheduleAtFixedRate(
                () -> {
                    Instant now = clock.instant();
                    try {
                        Instant expiry = now.plus(settings.lease());
                        if (!runs.heartbeat(run.jobId(), run.runId(), run.attempt(), executorId, expiry, now)) {
                            handle.kill(FENCED);
                            return;
                        }
                        held.set(expiry);
                        renewed.accept(expiry);
                        queue.changeVisibility(
                                message.receiptHandle(), (int) settings.lease().toSeconds());
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, "heartbeat of " + run.jobId() + "/" + run.runId() + " failed", e);
                        // Self-fencing: if the next beat would come after our lease ends, another executor may take the
                        // run over any moment; two attempts must never run at once, so ours stops now.
                        if (!now.plus(settings.heartbeat()).isBefore(held.get())) {
                            handle.kill(SELF_FENCED);
                        }
                    }
                },
                period,
                period,
                TimeUnit.MILLISECONDS);
    }

    /** The run's lease passed to another executor before its binary started: it must not start here. */
    private static final class FencedBeforeStart extends RuntimeException {
        FencedBeforeStart() {
            super(FENCED, null, false, false);
        }
    }

    /** Kills every running binary, e.g. when the shutdown grace period is over; their runs are released. */
    public void killAll(String reason) {
        running.values().forEach(h -> Thread.ofVirtual().start(() -> h.kill(reason)));
    }

    public int runningCount() {
        return running.size();
    }

    /** How many times a log upload is tried: it must not hold up the outcome, which matters more. */
    static final int LOG_TRIES = 3;

    private String uploadLog(String key, Path logFile, AtomicReference<Instant> held) throws InterruptedException {
        if (logFile == null || !Files.exists(logFile)) {
            return null;
        }
        try {
            return whileHeld(held, "uploading log " + key, LOG_TRIES, () -> {
                store.putLog(key, logFile);
                return key;
            });
        } catch (RuntimeException e) {
            // Recorded without its log rather than not at all.
            return null;
        }
    }

    private static void deleteQuietly(Path dir, Path file) {
        if (file != null) {
            Sandbox.deleteTree(file);
        }
        Sandbox.deleteTree(dir);
    }
}
