package dev.punctual.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.run.Run;
import dev.punctual.emulators.EmbeddedAws;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 4's fault-injection suite: for each fault, a scenario submits short runs, runs them on three executor
 * processes and the sweeper, injects the fault, heals, drains and checks (see {@link Checker}). The table of every
 * scenario is printed and written to {@code target/fault-report.md}. Soak mode: {@code -Dfaults.soak=PT2H} repeats
 * each scenario for its share of that time; {@code -Dfaults.runs=N} sets the runs per scenario (default 85). Tests 1b, 2b, 11b and 12b reproduce core bugs the suite
 * found, since fixed: they stay as regression tests.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultSuiteTest {
    static final int RUNS = Integer.getInteger("faults.runs", 85);
    static final Duration SOAK = Duration.parse(System.getProperty("faults.soak", "PT0S"));
    /** Test methods sharing the soak time. */
    static final int SCENARIOS = 17;

    static final Duration DRAIN = Duration.ofSeconds(120);
    static final List<Checker.Result> RESULTS = new CopyOnWriteArrayList<>();
    /** Strong references, so the levels set on these loggers stick. */
    private static final List<Logger> QUIET = new ArrayList<>();

    static EmbeddedAws aws;
    static Path root;

    @BeforeAll
    static void startEmulators() throws Exception {
        for (String name : List.of("dev.punctual", "software.amazon", "org.elasticmq", "com.amazonaws")) {
            Logger l = Logger.getLogger(name);
            l.setLevel(Level.SEVERE);
            QUIET.add(l);
        }
        aws = EmbeddedAws.startInMemory();
        root = Files.createDirectories(Path.of(System.getProperty("faults.reportDir", "target"), "faults-work"));
    }

    @AfterAll
    static void report() throws Exception {
        if (aws != null) {
            aws.close();
        }
        StringBuilder sb = new StringBuilder();
        sb.append("| scenario | runs | lost | overlapping | duplicates | seconds | notes |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---|\n");
        int runs = 0;
        int lost = 0;
        int overlapping = 0;
        int duplicates = 0;
        double seconds = 0;
        for (Checker.Result r : RESULTS.stream()
                .sorted(java.util.Comparator.comparing(r -> r.scenario().matches("^\\d+.*")
                        ? Integer.parseInt(r.scenario().replaceAll("^(\\d+).*", "$1"))
                        : 99))
                .toList()) {
            sb.append(r.row()).append('\n');
            runs += r.runs();
            lost += r.lost();
            overlapping += r.overlapping();
            duplicates += r.duplicates();
            seconds += r.seconds();
        }
        sb.append(String.format(
                java.util.Locale.ROOT,
                "| **total** | **%d** | **%d** | **%d** | **%d** | %.1f | |%n",
                runs,
                lost,
                overlapping,
                duplicates,
                seconds));
        StringBuilder details = new StringBuilder();
        for (Checker.Result r : RESULTS) {
            if (!r.problems().isEmpty() || !r.findings().isEmpty()) {
                details.append("\n### ").append(r.scenario()).append("\n\n");
                r.problems().stream()
                        .limit(30)
                        .forEach(p -> details.append("- violation: ").append(p).append('\n'));
                r.findings().stream()
                        .limit(30)
                        .forEach(f -> details.append("- finding: ").append(f).append('\n'));
            }
        }
        String table = sb.toString() + (details.isEmpty() ? "" : "\nDetails:\n" + details);
        System.out.println("\nFault suite (runs per scenario " + RUNS + ", soak " + SOAK + "):\n" + table);
        Path dir = Path.of(System.getProperty("faults.reportDir", "target"));
        Files.createDirectories(dir);
        Files.writeString(
                dir.resolve("fault-report.md"),
                "# Fault suite report\n\nRuns per scenario: " + RUNS + "; soak: " + SOAK + "; generated "
                        + java.time.Instant.now() + ".\n\n" + table);
    }

    // ---- plumbing ----------------------------------------------------------------------------------------------

    /** A fresh stage on the shared in-memory emulators, named after the scenario that is running. */
    Stage stage(Map<String, String> overrides) throws Exception {
        return new Stage(CURRENT.get(), aws.target(), root, overrides);
    }

    static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    /**
     * Runs a scenario once, and in soak mode again until its share of the soak time is used; records the sum and
     * asserts the invariants every scenario shares.
     */
    static void scenario(String name, Callable<Checker.Result> cycle) throws Exception {
        CURRENT.set(name);
        long until = System.nanoTime() + SOAK.dividedBy(SCENARIOS).toNanos();
        List<Checker.Result> all = new ArrayList<>();
        do {
            Checker.Result r;
            try {
                r = cycle.call();
                assertInvariants(r);
            } catch (Throwable t) {
                Checker.Result last = Stage.LAST.get();
                if (last != null) {
                    RESULTS.add(new Checker.Result(
                            name,
                            last.runs(),
                            last.lost(),
                            last.overlapping(),
                            last.duplicates(),
                            last.extraStarts(),
                            last.violations(),
                            last.seconds(),
                            last.problems(),
                            Map.of(),
                            Map.of(),
                            "**FAILED**: "
                                    + String.valueOf(t.getMessage())
                                            .lines()
                                            .findFirst()
                                            .orElse("") + "; " + last.notes(),
                            last.findings()));
                }
                throw t;
            } finally {
                Stage.LAST.remove();
            }
            all.add(r);
        } while (System.nanoTime() < until);
        Checker.Result sum = all.get(0);
        if (all.size() > 1) {
            sum = new Checker.Result(
                    name,
                    all.stream().mapToInt(Checker.Result::runs).sum(),
                    all.stream().mapToInt(Checker.Result::lost).sum(),
                    all.stream().mapToInt(Checker.Result::overlapping).sum(),
                    all.stream().mapToInt(Checker.Result::duplicates).sum(),
                    all.stream().mapToInt(Checker.Result::extraStarts).sum(),
                    all.stream().mapToInt(Checker.Result::violations).sum(),
                    all.stream().mapToDouble(Checker.Result::seconds).sum(),
                    List.of(),
                    Map.of(),
                    Map.of(),
                    all.size() + " cycles; " + all.get(all.size() - 1).notes(),
                    all.stream().flatMap(x -> x.findings().stream()).toList());
        }
        RESULTS.add(rename(sum, name));
    }

    static Checker.Result rename(Checker.Result r, String name) {
        return new Checker.Result(
                name,
                r.runs(),
                r.lost(),
                r.overlapping(),
                r.duplicates(),
                r.extraStarts(),
                r.violations(),
                r.seconds(),
                r.problems(),
                r.finalRuns(),
                r.attempts(),
                r.notes(),
                r.findings());
    }

    static void assertInvariants(Checker.Result r) {
        String problems = String.join(
                "\n  ", r.problems().subList(0, Math.min(40, r.problems().size())));
        assertThat(r.lost())
                .as("lost runs in %s:\n  %s", r.scenario(), problems)
                .isZero();
        assertThat(r.overlapping())
                .as("overlapping attempts in %s:\n  %s", r.scenario(), problems)
                .isZero();
        assertThat(r.violations())
                .as("violations in %s:\n  %s", r.scenario(), problems)
                .isZero();
    }

    static int starts(Checker.Result r, String jobId, String runId) {
        return r.attempts().getOrDefault(jobId + "/" + runId, List.of()).size();
    }

    // ---- 1. kill -9 --------------------------------------------------------------------------------------------

    @Test
    @Order(1)
    void killMinus9OfAnExecutorMidRun() throws Exception {
        scenario("1. kill -9 of an executor mid-run", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                s.startExecutors(3);
                Thread submit = Thread.ofPlatform().start(() -> s.submitWorkers(s.api, RUNS, 0.2, 0.8, Stage::now));
                List<Run> held = new ArrayList<>();
                for (int k = 1; k <= 2; k++) {
                    s.awaitStarts(RUNS * k / 4, Duration.ofSeconds(60));
                    Exec victim = s.live().get(0);
                    await().atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(20))
                            .until(() -> !s.heldBy(victim.id).isEmpty());
                    held.addAll(s.heldBy(victim.id));
                    victim.kill9();
                    s.startExecutor(Map.of()).awaitReady();
                }
                submit.join();
                Checker.Result r = s.drainAndCheck(DRAIN);
                long rerun = held.stream()
                        .filter(h ->
                                r.finalRuns().get(h.jobId() + "/" + h.runId()).attempt() > h.attempt())
                        .count();
                s.notes.add("2 executors killed holding " + held.size() + " runs, " + rerun + " re-run by others");
                assertThat(rerun)
                        .as("runs held by a killed executor are taken over by a new attempt")
                        .isPositive();
                return s.check();
            }
        });
    }

    // ---- 1b. kill -9 while its binary outlives the lease -------------------------------------------------------

    /**
     * kill -9 of an executor process on a plain host (bin/run-executor), while it runs a binary longer than the
     * lease. The binary runs in its own session (setsid), so it used to be orphaned, not killed, and kept running
     * while the run was taken over by another executor; now its parent-death signal (setpriv --pdeathsig) kills
     * it with the executor. (On ECS the whole container dies with the executor anyway.)
     */
    @Test
    @Order(1)
    void killMinus9WhileItsBinaryOutlivesTheLease() throws Exception {
        scenario("1b. kill -9, binary longer than the lease", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                Exec victim = s.startExecutors(1).get(0);
                for (int i = 0; i < 2; i++) {
                    s.submit(
                            s.api,
                            Stage.WORKER,
                            "long-" + i,
                            s.env(FaultSettings.LEASE.toSeconds() * 2.5, 0),
                            Stage.now(),
                            60,
                            3,
                            dev.punctual.core.run.RunState.SUCCEEDED,
                            1);
                }
                s.awaitStarts(2, Duration.ofSeconds(30));
                victim.kill9();
                s.startExecutors(1);
                Checker.Result r = s.drainAndCheck(DRAIN);
                s.notes.add("executor killed while running 2 binaries of " + FaultSettings.LEASE.toSeconds() * 2.5
                        + " s (lease " + FaultSettings.LEASE.toSeconds() + " s); both retaken by another executor");
                return s.check();
            }
        });
    }

    // ---- 3. crash after the binary exits, before the result is written -----------------------------------------

    @Test
    @Order(3)
    void crashAfterTheBinaryExitsBeforeTheResultIsWritten() throws Exception {
        scenario("3. crash after exit, before the result", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                Exec victim = s.startExecutor(Map.of("halt-before-result", "4"));
                s.startExecutors(2);
                victim.awaitReady();
                Thread submit = Thread.ofPlatform().start(() -> s.submitWorkers(s.api, RUNS, 0.1, 0.5, Stage::now));
                assertThat(victim.awaitExit(Duration.ofSeconds(60)))
                        .as("the injected crash happened")
                        .isTrue();
                assertThat(victim.process.exitValue()).isEqualTo(FaultExecutor.HALT_STATUS);
                String[] fault = victim.faultLines().get(0).split(" ");
                s.startExecutor(Map.of()).awaitReady();
                submit.join();
                Checker.Result r = s.drainAndCheck(DRAIN);
                Run hit = r.finalRuns().get(fault[2] + "/" + fault[3]);
                s.notes.add("result of " + fault[3].substring(0, 15) + " lost by the crash: the run was started "
                        + starts(r, fault[2], fault[3]) + "x, recorded attempt " + hit.attempt());
                assertThat(starts(r, fault[2], fault[3]))
                        .as("a run whose result was lost runs again")
                        .isGreaterThan(1);
                assertThat(hit.attempt()).isGreaterThan(1);
                return s.check();
            }
        });
    }

    // ---- 4. crash after the result, before the message is deleted ----------------------------------------------

    @Test
    @Order(4)
    void crashAfterTheResultBeforeTheMessageIsDeleted() throws Exception {
        scenario("4. crash after the result, before the delete", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                Exec victim = s.startExecutor(Map.of("halt-before-delete", "4"));
                s.startExecutors(2);
                victim.awaitReady();
                Thread submit = Thread.ofPlatform().start(() -> s.submitWorkers(s.api, RUNS, 0.1, 0.5, Stage::now));
                assertThat(victim.awaitExit(Duration.ofSeconds(60)))
                        .as("the injected crash happened")
                        .isTrue();
                assertThat(victim.process.exitValue()).isEqualTo(FaultExecutor.HALT_STATUS);
                String[] fault = victim.faultLines().get(0).split(" ");
                s.startExecutor(Map.of()).awaitReady();
                submit.join();
                Checker.Result r = s.drainAndCheck(DRAIN);
                Stage.Expect e = s.expected.get(fault[2]);
                int n = starts(r, fault[2], fault[3]);
                s.notes.add("message of " + fault[3].substring(0, 15) + " not deleted: redelivered, started " + n
                        + "x (dictated " + e.dictatedStarts() + ")");
                assertThat(n)
                        .as("a recorded result is final: the redelivered message must not run it again")
                        .isEqualTo(e.dictatedStarts());
                return s.check();
            }
        });
    }

    // ---- 2. SIGSTOP past the lease, then SIGCONT ---------------------------------------------------------------

    @Test
    @Order(2)
    void sigstopOfAnExecutorPastItsLeaseThenSigcont() throws Exception {
        scenario("2. SIGSTOP past the lease, SIGCONT", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                s.startExecutors(3);
                Thread submit = Thread.ofPlatform().start(() -> s.submitWorkers(s.api, RUNS, 0.3, 1.2, Stage::now));
                s.awaitStarts(RUNS / 4, Duration.ofSeconds(60));
                Exec victim = s.live().get(0);
                // Freeze it while every slot runs a binary: then no thread of it is between a receive and a
                // binary's start (that window is scenario 2b's).
                List<Run> held = List.of();
                for (int tries = 0; tries < 20 && held.isEmpty(); tries++) {
                    await().atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(20))
                            .until(() -> busyRunning(s, victim));
                    victim.stop();
                    // Requests already on the wire when it stopped may still land: it counts as frozen busy only
                    // if it stays busy for half a second.
                    try {
                        await().during(Duration.ofMillis(500))
                                .atMost(Duration.ofSeconds(2))
                                .until(() -> busyRunning(s, victim));
                        held = s.heldBy(victim.id);
                    } catch (org.awaitility.core.ConditionTimeoutException notBusy) {
                        victim.cont();
                    }
                }
                assertThat(held).as("the frozen executor holds runs").isNotEmpty();
                List<Run> frozenHeld = held;
                // The fault lasts until every run it held has been taken over: its lease expired in DynamoDB and
                // another executor claimed the next attempt while this one was still frozen.
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> frozenHeld.stream()
                                .allMatch(h -> s.api.runs
                                                .get(h.jobId(), h.runId())
                                                .orElseThrow()
                                                .attempt()
                                        > h.attempt()));
                victim.cont();
                submit.join();
                Checker.Result r = s.drainAndCheck(DRAIN);
                for (Run h : held) {
                    Run f = r.finalRuns().get(h.jobId() + "/" + h.runId());
                    assertThat(f.attempt())
                            .as("the stale attempt must not win: %s", f)
                            .isGreaterThan(h.attempt());
                    assertThat(f.logKey())
                            .as("outcome written by the newest attempt")
                            .endsWith("/attempt-" + f.attempt() + ".log");
                }
                s.notes.add(victim.id + " frozen holding " + held.size() + " runs past its "
                        + FaultSettings.LEASE.toSeconds() + " s lease; all taken over, no stale result recorded");
                return s.check();
            }
        });
    }

    // ---- 2c. SIGSTOP past the lease while its binaries run on -----------------------------------------------------

    /**
     * As 2, but every binary runs longer than the lease (6–8 s against 4 s): frozen, the executor cannot kill them
     * itself, so without something outside its JVM they would run on beside the next attempts. Its supervisor
     * kills them before their lease ends.
     */
    @Test
    @Order(2)
    void sigstopOfAnExecutorWhoseBinariesOutliveTheLease() throws Exception {
        scenario("2c. SIGSTOP past the lease, binaries outlive it", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                s.startExecutors(3);
                int n = Math.max(24, RUNS / 4);
                Thread submit = Thread.ofPlatform().start(() -> s.submitWorkers(s.api, n, 6.0, 8.0, Stage::now));
                Exec victim = s.live().get(0);
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> busyRunning(s, victim));
                List<Run> held = s.heldBy(victim.id);
                victim.stop();
                long stoppedAt = System.nanoTime();
                // Frozen until every run it held has been taken over by another executor's next attempt.
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> held.stream()
                                .allMatch(h -> s.api.runs
                                                .get(h.jobId(), h.runId())
                                                .orElseThrow()
                                                .attempt()
                                        > h.attempt()));
                double frozen = (System.nanoTime() - stoppedAt) / 1e9;
                victim.cont();
                submit.join();
                Checker.Result r = s.drainAndCheck(DRAIN.plusSeconds(30));
                long killed = held.stream()
                        .filter(h -> r.attempts().getOrDefault(h.jobId() + "/" + h.runId(), List.of()).stream()
                                .anyMatch(a -> a.attempt == h.attempt() && a.endNs == null))
                        .count();
                s.notes.add(victim.id + " frozen " + String.format(java.util.Locale.ROOT, "%.1f", frozen)
                        + " s holding " + held.size() + " runs whose binaries sleep 6-8 s (lease "
                        + FaultSettings.LEASE.toSeconds() + " s); " + killed + " of their binaries killed by the "
                        + "supervisor before the next attempt started");
                // A binary within 3 s of its end when the executor froze may finish first; the others must have
                // been killed, or they would have overlapped the next attempts (which the invariants rule out).
                assertThat(killed)
                        .as("the frozen executor's long binaries were killed")
                        .isPositive();
                return s.check();
            }
        });
    }

    /** Every slot of the executor holds a RUNNING run whose current attempt's binary has started. */
    static boolean busyRunning(Stage s, Exec e) {
        List<Run> held = s.heldBy(e.id);
        if (held.size() < s.settings.executorConcurrency()) {
            return false;
        }
        List<Witness.Attempt> as = s.witness.attempts();
        return held.stream()
                .allMatch(h -> as.stream()
                        .anyMatch(a ->
                                a.jobId.equals(h.jobId()) && a.runId.equals(h.runId()) && a.attempt == h.attempt()));
    }

    // ---- 2b. SIGSTOP between the claim and the binary's start ---------------------------------------------------

    /**
     * The executor freezes (SIGSTOP, sent by itself through an SDK interceptor, so it lands exactly there) right
     * after its claim transaction succeeded and before it reads the run back and starts the binary. It stays frozen
     * until another executor has taken the run over with the next attempt, then continues.
     */
    @Test
    @Order(2)
    void sigstopBetweenTheClaimAndTheBinarysStart() throws Exception {
        scenario("2b. SIGSTOP between claim and start", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                Exec victim = s.startExecutor(Map.of("stop-after-claim", "3"));
                s.startExecutors(2);
                victim.awaitReady();
                Thread submit = Thread.ofPlatform().start(() -> s.submitWorkers(s.api, RUNS / 2, 1.0, 2.0, Stage::now));
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> !victim.faultLines().isEmpty() && "T".equals(procState(victim.pid())));
                String[] fault = victim.faultLines().get(0).split(" ");
                Run claimed = s.api.runs.get(fault[2], fault[3]).orElseThrow();
                assertThat(claimed.leaseOwner()).isEqualTo(victim.id);
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() ->
                                s.api.runs.get(fault[2], fault[3]).orElseThrow().attempt() > claimed.attempt());
                victim.cont();
                submit.join();
                Checker.Result r = s.drainAndCheck(DRAIN);
                s.notes.add(victim.id + " frozen after claiming attempt " + claimed.attempt() + " of "
                        + fault[3].substring(0, 15) + "; resumed after attempt " + (claimed.attempt() + 1)
                        + " was claimed elsewhere; that run was started " + starts(r, fault[2], fault[3])
                        + "x, attempts "
                        + r.attempts().getOrDefault(fault[2] + "/" + fault[3], List.of()).stream()
                                .map(a -> a.attempt)
                                .sorted()
                                .toList());
                return s.check();
            }
        });
    }

    static String procState(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[0];
        } catch (java.io.IOException e) {
            return "";
        }
    }

    // ---- 5. the same message twice, visibility 0 ---------------------------------------------------------------

    @Test
    @Order(5)
    void theSameMessageDeliveredTwiceAndVisibilitySetToZero() throws Exception {
        scenario("5. duplicate delivery, visibility 0", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                s.startExecutors(3);
                // A rogue consumer: receives whatever is visible and hands it straight back (visibility 0), so the
                // same message is delivered again at once.
                java.util.concurrent.atomic.AtomicBoolean rogue = new java.util.concurrent.atomic.AtomicBoolean(true);
                java.util.concurrent.atomic.AtomicInteger released = new java.util.concurrent.atomic.AtomicInteger();
                Thread rogueThread = Thread.ofPlatform().daemon().start(() -> {
                    while (rogue.get()) {
                        try {
                            for (var m : s.api.queue.receive(10, 1, 30)) {
                                s.api.queue.changeVisibility(m.receiptHandle(), 0);
                                released.incrementAndGet();
                            }
                        } catch (RuntimeException e) {
                            // a receipt handle that went stale is normal here
                        }
                    }
                });
                s.submitWorkers(s.api, RUNS, 0.2, 0.8, Stage::now);
                // ... and every run's message a second time.
                List<dev.punctual.core.queue.RunMessage> copies = s.allRuns().stream()
                        .map(r -> new dev.punctual.core.queue.RunMessage(r.jobId(), r.runId(), r.scheduledAt()))
                        .toList();
                int sent = 0;
                for (int i = 0; i < copies.size(); i += 10) {
                    sent += s.api.queue
                            .sendBatch(copies.subList(i, Math.min(copies.size(), i + 10)), java.time.Instant.now())
                            .size();
                }
                s.awaitStarts(RUNS / 2, Duration.ofSeconds(60));
                rogue.set(false);
                rogueThread.join();
                Checker.Result r = s.drainAndCheck(DRAIN);
                s.notes.add(sent + " messages sent twice, " + released.get() + " released at visibility 0");
                assertThat(sent).isEqualTo(RUNS);
                assertThat(r.duplicates())
                        .as("a duplicate delivery never starts a binary again: only one claim wins")
                        .isZero();
                return s.check();
            }
        });
    }

    // ---- 6. two sweepers at once -------------------------------------------------------------------------------

    @Test
    @Order(6)
    void twoSweepersAtOnce() throws Exception {
        scenario("6. two sweepers at once", () -> {
            try (Stage s = stage(Map.of())) {
                s.startExecutors(3);
                var d2 = dev.punctual.core.infra.AwsClients.dynamo(s.target);
                var q2 = dev.punctual.core.infra.AwsClients.sqs(s.target);
                dev.punctual.core.Punctual other = s.punctual(d2, q2, java.time.Clock.systemUTC());
                // Interval jobs: every occurrence after the first is queued (and the next one written) by a sweep.
                java.time.Instant start =
                        java.time.Instant.now().plusSeconds(7).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
                Duration every = Duration.ofSeconds(5);
                int perJob = 4;
                int jobs = Math.max(1, RUNS / perJob);
                s.submitWorkers(
                        s.api,
                        jobs,
                        0.1,
                        0.6,
                        () -> Stage.interval(every, start, start.plus(every.multipliedBy(perJob - 1))));
                Sweeping a = s.startSweeper(s.api, "sweeper-a");
                Sweeping b = s.startSweeper(other, "sweeper-b");
                Checker.Result r = s.drainAndCheck(DRAIN.plus(every.multipliedBy(perJob)));
                d2.close();
                q2.close();
                s.notes.add(
                        jobs + " interval jobs x " + perJob + "; sweeps " + a.sweeps.get() + " + " + b.sweeps.get());
                assertThat(a.sweeps.get()).isPositive();
                assertThat(b.sweeps.get()).isPositive();
                assertThat(r.duplicates())
                        .as("racing sweepers send a run twice at most; only one claim wins")
                        .isZero();
                return s.check();
            }
        });
    }

    // ---- 7. sweeper off for 10 minutes -------------------------------------------------------------------------

    @Test
    @Order(7)
    void sweeperOffForTenMinutes() throws Exception {
        scenario("7. sweeper off for 10 (simulated) min", () -> {
            try (Stage s = stage(Map.of())) {
                java.time.Instant real = java.time.Instant.now();
                Duration outage = Duration.ofMinutes(10);
                dev.punctual.core.time.SettableClock clock = new dev.punctual.core.time.SettableClock(
                        real.minus(outage).minusSeconds(30));
                // The API as it was during the outage, on a clock that starts 10.5 minutes ago; its last sweep
                // before the outage persists the watermark there.
                dev.punctual.core.Punctual past = s.punctual(s.dynamo, s.sqs, clock);
                past.sweeper.sweep();
                s.startExecutors(3);
                int intervalJobs = 2;
                int perMinute = Math.max(1, (RUNS - intervalJobs * 10) / 10);
                for (int m = 0; m < 10; m++) {
                    clock.set(real.minus(outage).plus(Duration.ofMinutes(m)));
                    java.time.Instant at = clock.instant().plusSeconds(30);
                    s.submitWorkers(past, perMinute, 0.1, 0.4, () -> Stage.once(at));
                    if (m == 0) {
                        java.time.Instant first = at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
                        s.submitWorkers(
                                past,
                                intervalJobs,
                                0.1,
                                0.2,
                                () -> Stage.interval(Duration.ofMinutes(1), first, first.plus(Duration.ofMinutes(9))));
                    }
                }
                int accepted = s.expected.values().stream()
                        .mapToInt(Stage.Expect::occurrences)
                        .sum();
                assertThat(s.witness.starts())
                        .as("nothing ran during the outage: nobody sent a message")
                        .isZero();
                assertThat(s.allRuns()).allMatch(r -> r.state() == dev.punctual.core.run.RunState.SCHEDULED);
                Sweeping sw = s.startSweeper(s.api, "sweeper");
                Checker.Result r = s.drainAndCheck(DRAIN);
                s.notes.add(accepted + " runs came due during a " + outage.toMinutes()
                        + "-minute sweeper outage (jobs created on a clock set back); caught up by "
                        + sw.sweeps.get() + " sweeps");
                assertThat(r.duplicates()).isZero();
                return s.check();
            }
        });
    }

    // ---- 8. sweeper crash mid-bucket ---------------------------------------------------------------------------

    /** What a process dying mid-call looks like to the code above it: nothing catches it, nothing runs after. */
    static final class SimulatedCrash extends Error {
        SimulatedCrash() {
            super("injected: the sweeper's process died");
        }
    }

    @Test
    @Order(8)
    void sweeperCrashMidBucket() throws Exception {
        scenario("8. sweeper crash mid-bucket", () -> {
            try (Stage s = stage(Map.of())) {
                s.startExecutors(3);
                java.util.concurrent.atomic.AtomicInteger txs = new java.util.concurrent.atomic.AtomicInteger();
                var crashing = software.amazon.awssdk.services.dynamodb.DynamoDbClient.builder()
                        .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
                        .endpointOverride(s.target.dynamodb())
                        .region(s.target.region())
                        .credentialsProvider(s.target.credentials())
                        .overrideConfiguration(o -> o.addExecutionInterceptor(
                                new software.amazon.awssdk.core.interceptor.ExecutionInterceptor() {
                                    @Override
                                    public void beforeExecution(
                                            software.amazon.awssdk.core.interceptor.Context.BeforeExecution c,
                                            software.amazon.awssdk.core.interceptor.ExecutionAttributes a) {
                                        if (c.request()
                                                        instanceof
                                                        software.amazon.awssdk.services.dynamodb.model
                                                                .TransactWriteItemsRequest
                                                && txs.incrementAndGet() == 3) {
                                            throw new SimulatedCrash();
                                        }
                                    }
                                }))
                        .build();
                dev.punctual.core.Punctual doomed = s.punctual(crashing, s.sqs, java.time.Clock.systemUTC());
                java.time.Instant at = java.time.Instant.now().plusSeconds(9);
                s.submitWorkers(s.api, RUNS, 0.1, 0.5, () -> Stage.once(at));
                assertThat(s.allRuns()).allMatch(r -> r.state() == dev.punctual.core.run.RunState.SCHEDULED);
                // Once the runs are inside the sweep horizon, one sweep finds them all and dies while marking.
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> java.time.Instant.now()
                                .isAfter(at.minus(s.settings.lookahead()).plusMillis(300)));
                Throwable crash = org.assertj.core.api.Assertions.catchThrowable(doomed.sweeper::sweep);
                assertThat(crash).as("the sweep crashed").isNotNull();
                assertThat(crash instanceof SimulatedCrash || crash.getCause() instanceof SimulatedCrash)
                        .as("crashed by the injection: %s", crash)
                        .isTrue();
                long queued = s.allRuns().stream()
                        .filter(r -> r.state() != dev.punctual.core.run.RunState.SCHEDULED)
                        .count();
                crashing.close();
                Sweeping sw = s.startSweeper(s.api, "sweeper");
                Checker.Result r = s.drainAndCheck(DRAIN);
                s.notes.add("crashed sweep sent a batch and marked " + queued + " of " + RUNS
                        + "; a healthy sweeper redid the bucket");
                assertThat(queued).as("the crash left the bucket half done").isLessThan(RUNS);
                assertThat(r.duplicates()).isZero();
                return s.check();
            }
        });
    }

    // ---- 9. SQS send failing after the DynamoDB write ----------------------------------------------------------

    @Test
    @Order(9)
    void sqsSendFailingAfterTheDynamoDbWrite() throws Exception {
        scenario("9. SQS send failing after the write", () -> {
            try (Stage s = stage(Map.of())) {
                java.util.concurrent.atomic.AtomicBoolean failing = new java.util.concurrent.atomic.AtomicBoolean(true);
                java.util.concurrent.atomic.AtomicInteger before = new java.util.concurrent.atomic.AtomicInteger();
                java.util.concurrent.atomic.AtomicInteger after = new java.util.concurrent.atomic.AtomicInteger();
                var execAttr = new software.amazon.awssdk.core.interceptor.ExecutionAttribute<Boolean>("failAfter");
                var sqs = software.amazon.awssdk.services.sqs.SqsClient.builder()
                        .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
                        .endpointOverride(s.target.sqs())
                        .region(s.target.region())
                        .credentialsProvider(s.target.credentials())
                        .overrideConfiguration(o -> o.addExecutionInterceptor(
                                new software.amazon.awssdk.core.interceptor.ExecutionInterceptor() {
                                    @Override
                                    public void beforeExecution(
                                            software.amazon.awssdk.core.interceptor.Context.BeforeExecution c,
                                            software.amazon.awssdk.core.interceptor.ExecutionAttributes a) {
                                        if (!failing.get()
                                                || !(c.request()
                                                        instanceof
                                                        software.amazon.awssdk.services.sqs.model
                                                                .SendMessageBatchRequest)) {
                                            return;
                                        }
                                        int dice = java.util.concurrent.ThreadLocalRandom.current()
                                                .nextInt(3);
                                        if (dice == 0) {
                                            before.incrementAndGet();
                                            throw software.amazon.awssdk.core.exception.SdkClientException.create(
                                                    "injected: SQS unreachable");
                                        }
                                        a.putAttribute(execAttr, dice == 1);
                                    }

                                    @Override
                                    public void afterExecution(
                                            software.amazon.awssdk.core.interceptor.Context.AfterExecution c,
                                            software.amazon.awssdk.core.interceptor.ExecutionAttributes a) {
                                        if (Boolean.TRUE.equals(a.getAttribute(execAttr))) {
                                            after.incrementAndGet();
                                            throw software.amazon.awssdk.core.exception.SdkClientException.create(
                                                    "injected: connection reset after the messages were sent");
                                        }
                                    }
                                }))
                        .build();
                dev.punctual.core.Punctual flaky = s.punctual(s.dynamo, sqs, java.time.Clock.systemUTC());
                s.startExecutors(3);
                s.startSweeper(flaky, "sweeper");
                s.submitWorkers(flaky, RUNS, 0.1, 0.5, Stage::now);
                await().atMost(Duration.ofSeconds(30)).until(() -> before.get() + after.get() >= 6);
                failing.set(false);
                Checker.Result r = s.drainAndCheck(DRAIN);
                sqs.close();
                s.notes.add(before.get() + " sends failed before reaching SQS, " + after.get()
                        + " failed after it (sent, reported failed)");
                assertThat(before.get()).isPositive();
                assertThat(after.get()).isPositive();
                assertThat(r.duplicates()).isZero();
                return s.check();
            }
        });
    }

    // ---- 10. DynamoDB throttling and 5xx -----------------------------------------------------------------------

    /**
     * Whether the API answers this exception with 503 and Retry-After: the condition of
     * {@code api/.../ProblemMappers.aws(SdkException)}, mirrored here because this module runs without Quarkus;
     * every other exception becomes a 500.
     */
    static boolean answers503(Throwable e) {
        return e instanceof software.amazon.awssdk.core.exception.SdkException s
                && (s.retryable()
                        || e instanceof software.amazon.awssdk.awscore.exception.AwsServiceException a
                                && (a.isThrottlingException() || a.statusCode() >= 500));
    }

    @Test
    @Order(10)
    void dynamoDbThrottlingAndServerErrors() throws Exception {
        scenario("10. DynamoDB throttling / 5xx", () -> {
            try (Stage s = stage(Map.of())) {
                s.binary(Stage.WORKER);
                java.util.concurrent.atomic.AtomicReference<Double> rate =
                        new java.util.concurrent.atomic.AtomicReference<>(0.4);
                FaultyHttpClient http = Stage.faultyHttp(rate::get);
                var faulty = s.faultyDynamo(http);
                dev.punctual.core.Punctual throttled = s.punctual(faulty, s.sqs, java.time.Clock.systemUTC());
                for (int i = 0; i < 3; i++) {
                    s.startExecutor(Map.of("dynamo-errors", "0.05"));
                }
                s.executors.forEach(Exec::awaitReady);
                s.startSweeper(throttled, "sweeper");
                // First an outage: every call of the API and the sweeper answered 500/503 until the SDK gives up.
                int outageRequests = Math.max(4, RUNS / 10);
                rate.set(1.0);
                http.serverErrorsOnly = true;
                Map<String, RuntimeException> failed =
                        new java.util.HashMap<>(s.submitTolerant(throttled, outageRequests, 0.2, 8, 0));
                // Then throttling and 5xx on 40 % of the calls: the SDK's retries absorb most.
                rate.set(0.4);
                http.serverErrorsOnly = false;
                failed.putAll(s.submitTolerant(throttled, RUNS, 0.2, 8, outageRequests));
                rate.set(0.0);
                // Failed requests: a 503, and nothing of them written.
                java.util.Set<String> jobNames = new java.util.HashSet<>();
                s.allJobs().forEach(j -> jobNames.add(j.get("name").s()));
                List<String> not503 = new ArrayList<>();
                List<String> partial = new ArrayList<>();
                failed.forEach((name, e) -> {
                    if (!answers503(e)) {
                        not503.add(name + ": " + e);
                    }
                    if (jobNames.contains(name)) {
                        partial.add(name);
                    }
                });
                Checker.Result r = s.drainAndCheck(DRAIN);
                faulty.close();
                s.notes.add(http.injected.get() + " of " + http.calls.get() + " API/sweeper DynamoDB calls failed"
                        + " (plus 5 % in executors); " + failed.size() + " of " + (RUNS + outageRequests)
                        + " creates answered 503 (" + outageRequests
                        + " in a full outage), none 500, none wrote anything;"
                        + " the rest ran");
                assertThat(http.injected.get()).isPositive();
                assertThat(failed)
                        .as("the requests during the outage failed")
                        .hasSizeGreaterThanOrEqualTo(outageRequests);
                assertThat(not503).as("failures the API would answer with 500").isEmpty();
                assertThat(partial).as("failed creates that wrote a job anyway").isEmpty();
                return s.check();
            }
        });
    }

    // ---- 11. emulator restart, data kept -----------------------------------------------------------------------

    static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    @Order(11)
    void emulatorRestartWithItsDataDirectoryKept() throws Exception {
        scenario("11. emulator restart, data kept", () -> {
            Path data = Files.createTempDirectory(root, "restart-data-");
            int dp = freePort();
            int qp = freePort();
            int sp = freePort();
            EmbeddedAws persistent = EmbeddedAws.start(data, dp, qp, sp);
            try (Stage s = new Stage(CURRENT.get(), persistent.target(), root, Map.of())) {
                s.startSweeper(s.api, "sweeper");
                s.startExecutors(3);
                s.submitWorkers(s.api, RUNS, 0.3, 1.0, Stage::now);
                s.awaitStarts(RUNS / 3, Duration.ofSeconds(60));
                long running = s.allRuns().stream()
                        .filter(r -> r.state() == dev.punctual.core.run.RunState.RUNNING)
                        .count();
                long waiting = s.allRuns().stream()
                        .filter(r -> !r.state().terminal() && r.state() != dev.punctual.core.run.RunState.RUNNING)
                        .count();
                persistent.close();
                // The outage lasts as long as a restart takes: same data directory, same ports.
                persistent = EmbeddedAws.start(data, dp, qp, sp);
                // ElasticMQ keeps queues in memory only: the queue comes back empty.
                s.provision();
                Checker.Result r = s.drainAndCheck(DRAIN);
                s.notes.add("restarted with " + running + " runs running and " + waiting
                        + " waiting (their messages lost with ElasticMQ's memory)");
                return s.check();
            } finally {
                persistent.close();
            }
        });
    }

    // ---- 11b. the last attempt's log cannot be uploaded ---------------------------------------------------------

    /**
     * Found by scenario 11 (S3 down while attempts finish): a run whose last attempt's log upload fails ends with the
     * previous attempt's log key, so the log API serves an earlier attempt's output as the latest. Made deterministic:
     * every attempt 2 log upload fails.
     */
    @Test
    @Order(11)
    void theLastAttemptsLogUploadFails() throws Exception {
        scenario("11b. last attempt's log upload fails", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                for (int i = 0; i < 2; i++) {
                    s.startExecutor(Map.of("fail-log-upload", "/attempt-2.log"));
                }
                s.executors.forEach(Exec::awaitReady);
                List<dev.punctual.core.service.JobView> jobs = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    jobs.add(s.submit(
                            s.api,
                            Stage.WORKER,
                            "fails-" + i,
                            s.env(0.1, 1),
                            Stage.now(),
                            60,
                            2,
                            dev.punctual.core.run.RunState.DEAD,
                            2));
                }
                Checker.Result r = s.drainAndCheck(DRAIN);
                List<String> wrong = new ArrayList<>();
                for (var j : jobs) {
                    Run run = runOf(r, j.id());
                    if (run.logKey() != null && !run.logKey().endsWith("/attempt-" + run.attempt() + ".log")) {
                        wrong.add(run.runId() + " attempt " + run.attempt() + " -> " + run.logKey());
                    }
                }
                s.notes.add(wrong.size() + " of " + jobs.size() + " DEAD runs (attempt 2, log upload failed) name the"
                        + " log of attempt 1");
                Checker.Result checked = s.check();
                assertThat(wrong)
                        .as("runs whose outcome names an earlier attempt's log (GET .../log serves it as the"
                                + " latest)")
                        .isEmpty();
                return checked;
            }
        });
    }

    // ---- 12. binaries that misbehave ---------------------------------------------------------------------------

    static final String START = "echo \"start $SCHEDULER_JOB_ID $SCHEDULER_RUN_ID $SCHEDULER_ATTEMPT $(date +%s%N) $$\""
            + " >> \"$WITNESS\"\n";
    static final String END = "echo \"end $SCHEDULER_JOB_ID $SCHEDULER_RUN_ID $SCHEDULER_ATTEMPT $(date +%s%N) $$ 0\""
            + " >> \"$WITNESS\"\n";
    static final String SEGFAULT = "#!/bin/sh\n" + START + "kill -SEGV $$\n";
    /** Leaves a child in its process group (still holding its stdout) and exits. */
    static final String FORKS_A_CHILD = "#!/bin/sh\n" + START
            + "sleep 300 &\necho $! > \"$FAULT_DIR/child-$SCHEDULER_JOB_ID.pid\"\n" + END + "exit 0\n";
    /**
     * A daemon proper: its own session (setsid), stdio detached; the binary exits once the daemon has written its
     * pid, i.e. once it is already out of the run's process group.
     */
    static final String STARTS_A_DAEMON = "#!/bin/sh\n" + START
            + "pidfile=\"$FAULT_DIR/daemon-$SCHEDULER_JOB_ID.pid\"\n"
            + "setsid sh -c 'echo $$ > \"$1.tmp\"; mv \"$1.tmp\" \"$1\"; exec sleep 301' daemon \"$pidfile\""
            + " </dev/null >/dev/null 2>&1 &\n"
            + "while [ ! -s \"$pidfile\" ]; do sleep 0.05; done\n"
            + END + "exit 0\n";

    static final String PRINTS_1GB = "#!/bin/sh\n" + START + "head -c 1073741824 /dev/zero\n" + END + "exit 0\n";
    /** Ignores SIGTERM and blocks (opening a FIFO nobody writes) without a child that could die of the signal. */
    static final String IGNORES_SIGTERM = "#!/bin/sh\ntrap '' TERM\n" + START
            + "mkfifo \"$TMPDIR/never\"\nread x < \"$TMPDIR/never\"\n" + END + "exit 0\n";

    @Test
    @Order(12)
    void binariesThatSegfaultForkPrintAGigabyteOrIgnoreSigterm() throws Exception {
        scenario("12. segfault, fork, 1 GB output, ignores SIGTERM", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                s.startExecutors(3);
                var DEAD = dev.punctual.core.run.RunState.DEAD;
                var OK = dev.punctual.core.run.RunState.SUCCEEDED;
                List<dev.punctual.core.service.JobView> segv = new ArrayList<>();
                List<dev.punctual.core.service.JobView> forks = new ArrayList<>();
                List<dev.punctual.core.service.JobView> stubborn = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    segv.add(s.submit(s.api, SEGFAULT, "segv-" + i, s.env(0, 0), Stage.now(), 60, 2, DEAD, 2));
                    forks.add(s.submit(s.api, FORKS_A_CHILD, "fork-" + i, s.env(0, 0), Stage.now(), 60, 3, OK, 1));
                }
                for (int i = 0; i < 2; i++) {
                    stubborn.add(
                            s.submit(s.api, IGNORES_SIGTERM, "stubborn-" + i, s.env(0, 0), Stage.now(), 2, 1, DEAD, 1));
                }
                var big = s.submit(s.api, PRINTS_1GB, "1gb", s.env(0, 0), Stage.now(), 120, 1, OK, 1);
                int special = s.expected.size();
                s.submitWorkers(s.api, RUNS - special, 0.1, 0.5, Stage::now);
                // The executor that runs the 1 GB binary, sampled while it does.
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> s.allRuns().stream()
                                .anyMatch(r -> r.jobId().equals(big.id()) && r.leaseOwner() != null));
                String bigOwner = s.allRuns().stream()
                        .filter(r -> r.jobId().equals(big.id()))
                        .findFirst()
                        .orElseThrow()
                        .leaseOwner();
                Exec bigExec = s.executors.stream()
                        .filter(e -> e.id.equals(bigOwner))
                        .findFirst()
                        .orElseThrow();
                await().atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> s.api.runs
                                .get(
                                        big.id(),
                                        s.allRuns().stream()
                                                .filter(r -> r.jobId().equals(big.id()))
                                                .findFirst()
                                                .orElseThrow()
                                                .runId())
                                .orElseThrow()
                                .state()
                                .terminal());
                long peakKb = bigExec.peakRssKb();
                boolean bigExecAlive = bigExec.alive();
                Checker.Result r = s.drainAndCheck(DRAIN);

                // segfault: died of SIGSEGV (128 + 11), retried, DEAD.
                for (var j : segv) {
                    Run run = runOf(r, j.id());
                    assertThat(run.exitCode())
                            .as("exit status of a SIGSEGV death")
                            .isEqualTo(139);
                }
                // fork: the child it left in its group did not outlive the run.
                for (var j : forks) {
                    long pid = Long.parseLong(Files.readString(s.dir.resolve("child-" + j.id() + ".pid"))
                            .trim());
                    await().atMost(Duration.ofSeconds(10)).until(() -> Witness.procStart(pid) == null);
                }
                // 1 GB: capped in the log, the executor's memory bounded, the executor alive.
                Run bigRun = runOf(r, big.id());
                String log = s.api.jobService.log(Stage.OWNER, big.id(), bigRun.runId());
                assertThat(log.length()).as("log capped").isLessThanOrEqualTo((int) s.settings.logCapBytes() + 200);
                assertThat(log).contains("output truncated");
                assertThat(bigExecAlive)
                        .as("the executor that pumped 1 GB survived")
                        .isTrue();
                assertThat(peakKb).as("its peak RSS (KiB), with a 128 MiB heap").isBetween(1L, 400L * 1024);
                // ignores SIGTERM: killed at the timeout (SIGKILL after the grace), DEAD.
                List<Double> killedAfter = new ArrayList<>();
                for (var j : stubborn) {
                    Run run = runOf(r, j.id());
                    assertThat(run.error()).contains("timed out");
                    Witness.Attempt a =
                            r.attempts().get(j.id() + "/" + run.runId()).get(0);
                    assertThat(a.endNs).as("it never finished by itself").isNull();
                    double secs = (a.until() - a.startNs) / 1e9;
                    killedAfter.add(secs);
                    double timeout = 2;
                    double grace = s.settings.killGrace().toMillis() / 1000.0;
                    assertThat(secs)
                            .as("killed at timeout + kill grace (SIGTERM ignored)")
                            .isBetween(timeout + grace - 0.5, timeout + grace + 5);
                }
                s.notes.add(String.format(
                        java.util.Locale.ROOT,
                        "SIGSEGV -> exit 139, DEAD after 2 attempts; forked"
                                + " children killed with the group; 1 GB printed: log %d bytes, executor peak RSS %d MiB;"
                                + " SIGTERM ignored: killed after %.1f s (timeout 2 s + grace %d s)",
                        log.length(),
                        peakKb / 1024,
                        killedAfter.stream().mapToDouble(d -> d).max().orElse(0),
                        s.settings.killGrace().toSeconds()));
                return s.check();
            }
        });
    }

    /** A binary that starts a real daemon (setsid, stdio detached) and exits: the daemon must not survive. */
    @Test
    @Order(12)
    void aDaemonThatStartsItsOwnSessionDoesNotOutliveItsRun() throws Exception {
        scenario("12b. daemon in its own session (setsid)", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                s.startExecutors(1);
                List<dev.punctual.core.service.JobView> jobs = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    jobs.add(s.submit(
                            s.api,
                            STARTS_A_DAEMON,
                            "daemon-" + i,
                            s.env(0, 0),
                            Stage.now(),
                            60,
                            3,
                            dev.punctual.core.run.RunState.SUCCEEDED,
                            1));
                }
                Checker.Result r = s.drainAndCheck(DRAIN);
                List<Long> survivors = new ArrayList<>();
                List<Long> daemons = new ArrayList<>();
                for (var j : jobs) {
                    long pid = Long.parseLong(Files.readString(s.dir.resolve("daemon-" + j.id() + ".pid"))
                            .trim());
                    daemons.add(pid);
                    try {
                        await().atMost(Duration.ofSeconds(10)).until(() -> Witness.procStart(pid) == null);
                    } catch (org.awaitility.core.ConditionTimeoutException e) {
                        survivors.add(pid);
                        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
                assertThat(daemons).as("every binary started its daemon").hasSize(jobs.size());
                s.notes.add(survivors.size() + " of " + jobs.size() + " setsid daemons survived their run"
                        + (survivors.isEmpty() ? "" : " (pids " + survivors + ", killed by the suite)"));
                Checker.Result checked = s.check();
                assertThat(survivors)
                        .as("daemons (setsid) that outlived their run: the executor kills only the"
                                + " binary's process group")
                        .isEmpty();
                return checked;
            }
        });
    }

    static Run runOf(Checker.Result r, String jobId) {
        return r.finalRuns().values().stream()
                .filter(x -> x.jobId().equals(jobId))
                .findFirst()
                .orElseThrow();
    }

    // ---- 13. SIGTERM: graceful drain ---------------------------------------------------------------------------

    @Test
    @Order(13)
    void sigtermDuringRunsDrainsGracefully() throws Exception {
        scenario("13. SIGTERM during runs (graceful drain)", () -> {
            try (Stage s = stage(Map.of("shutdownGrace", "PT3S"))) {
                s.startSweeper(s.api, "sweeper");
                s.startExecutors(3);
                int longOnes = RUNS / 5;
                Thread submit = Thread.ofPlatform().start(() -> {
                    s.submitWorkers(s.api, RUNS - longOnes, 0.3, 1.5, Stage::now);
                });
                s.awaitStarts(RUNS / 4, Duration.ofSeconds(60));
                // Runs longer than the grace period, started just before the signal.
                List<dev.punctual.core.service.JobView> slow = new ArrayList<>();
                for (int i = 0; i < longOnes; i++) {
                    slow.add(s.submit(
                            s.api,
                            Stage.WORKER,
                            "slow-" + i,
                            s.env(6.0, 0),
                            Stage.now(),
                            60,
                            3,
                            dev.punctual.core.run.RunState.SUCCEEDED,
                            1));
                }
                java.util.Set<String> slowIds = new java.util.HashSet<>();
                slow.forEach(j -> slowIds.add(j.id()));
                List<Exec> victims = s.live().subList(0, 2);
                // Each victim holds a run that cannot finish within the grace period, and others that can.
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> victims.stream()
                                .allMatch(v -> s.heldBy(v.id).stream().anyMatch(h -> slowIds.contains(h.jobId()))));
                List<Run> held = new ArrayList<>();
                long termAt = System.nanoTime();
                for (Exec v : victims) {
                    held.addAll(s.heldBy(v.id));
                    v.term();
                }
                s.startExecutors(2);
                Duration bound =
                        s.settings.shutdownGrace().plus(s.settings.killGrace()).plusSeconds(15);
                for (Exec v : victims) {
                    assertThat(v.awaitExit(bound))
                            .as("%s stopped by itself after SIGTERM", v.id)
                            .isTrue();
                    assertThat(v.lines()).as("%s drained", v.id).contains("DRAINED");
                }
                double stopSecs = (System.nanoTime() - termAt) / 1e9;
                submit.join();
                Checker.Result r = s.drainAndCheck(DRAIN);
                java.util.Set<String> victimIds = new java.util.HashSet<>();
                victims.forEach(v -> victimIds.add(v.id));
                long finishedInGrace = held.stream()
                        .map(h -> r.finalRuns().get(h.jobId() + "/" + h.runId()))
                        .filter(f -> f.attempt()
                                        == held.stream()
                                                .filter(h -> h.runId().equals(f.runId())
                                                        && h.jobId().equals(f.jobId()))
                                                .findFirst()
                                                .orElseThrow()
                                                .attempt()
                                && victimIds.contains(f.leaseOwner()))
                        .count();
                long released = held.size() - finishedInGrace;
                s.notes.add("2 executors got SIGTERM holding " + held.size() + " runs: " + finishedInGrace
                        + " finished within the " + s.settings.shutdownGrace().toSeconds() + " s grace, "
                        + released + " killed, released and run again elsewhere; both stopped by themselves in "
                        + String.format(java.util.Locale.ROOT, "%.1f s", stopSecs));
                assertThat(finishedInGrace)
                        .as("runs finish during the grace period")
                        .isPositive();
                assertThat(released)
                        .as("runs longer than the grace are released, then run again")
                        .isPositive();
                return s.check();
            }
        });
    }

    // ---- 14. a store outage around the result write ------------------------------------------------------------

    /**
     * At every 7th result write of each executor, its DynamoDB and S3 fail for 2 s (half the lease): the write and
     * the log uploads around it fail. The executor lives and keeps its lease (the outage is shorter than the lease
     * minus a heartbeat), so every binary that exited must have its outcome recorded by that same attempt: a binary
     * that succeeded is never run again.
     */
    @Test
    @Order(14)
    void aStoreOutageAroundTheResultWriteReRunsNothing() throws Exception {
        scenario("14. store outage around the result write", () -> {
            try (Stage s = stage(Map.of())) {
                s.startSweeper(s.api, "sweeper");
                List<Exec> faulty = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    faulty.add(s.startExecutor(Map.of("outage-at-result", "7:2000")));
                }
                faulty.forEach(Exec::awaitReady);
                s.submitWorkers(s.api, RUNS, 0.3, 1.0, Stage::now);
                Checker.Result r = s.drainAndCheck(DRAIN);
                long outages = faulty.stream()
                        .mapToLong(e -> e.faultLines().stream()
                                .filter(l -> l.startsWith("FAULT outage"))
                                .count())
                        .sum();
                s.notes.add(outages + " outages of 2 s, each starting at a result write; lease "
                        + FaultSettings.LEASE.toSeconds() + " s");
                assertThat(outages).as("outages were injected").isGreaterThanOrEqualTo(3);
                assertThat(r.duplicates())
                        .as("no binary that exited while its executor lived ran again")
                        .isZero();
                return s.check();
            }
        });
    }
}
