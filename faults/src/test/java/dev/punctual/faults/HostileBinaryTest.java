package dev.punctual.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.service.JobView;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * Binaries that misbehave: they segfault, leave a child behind, print a gigabyte, ignore SIGTERM, or start a daemon in
 * a session of its own.
 */
@Order(6)
class HostileBinaryTest extends FaultScenarios {
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
    @Order(1)
    void binariesThatSegfaultForkPrintAGigabyteOrIgnoreSigterm() throws Exception {
        // A lease of 8 s, not the suite's 4: this scenario is about the binaries, and its SIGTERM-ignoring runs must
        // be killed by their timeout (2 s + 1 s of grace). With 4 s, an executor slowed by the 1 GB pump beside them
        // (launch 2.2 s late, heartbeats behind) had its supervisor kill one for its lease first (CI on 2bbeae7):
        // scenarios 1b and 2c are where that kill is checked.
        scenario("12. segfault, fork, 1 GB output, ignores SIGTERM", Map.of("lease", "PT8S"), s -> {
            s.startSweeperAndExecutors(3);
            var DEAD = RunState.DEAD;
            var OK = RunState.SUCCEEDED;
            List<JobView> segv = new ArrayList<>();
            List<JobView> forks = new ArrayList<>();
            List<JobView> stubborn = new ArrayList<>();
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
                    .until(() ->
                            s.allRuns().stream().anyMatch(r -> r.jobId().equals(big.id()) && r.leaseOwner() != null));
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
                assertThat(run.exitCode()).as("exit status of a SIGSEGV death").isEqualTo(139);
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
            assertThat(log.length())
                    .as("log capped")
                    .isLessThanOrEqualTo((int) s.settings.storage().logCapBytes() + 200);
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
                Witness.Attempt a = r.attempts().get(j.id() + "/" + run.runId()).get(0);
                assertThat(a.endNs).as("it never finished by itself").isNull();
                double secs = (a.until() - a.startNs) / 1e9;
                killedAfter.add(secs);
                double timeout = 2;
                double grace = s.settings.execution().killGrace().toMillis() / 1000.0;
                assertThat(secs)
                        .as("killed at timeout + kill grace (SIGTERM ignored)")
                        .isBetween(timeout + grace - 0.5, timeout + grace + 5);
            }
            s.notes.add(String.format(
                    Locale.ROOT,
                    "SIGSEGV -> exit 139, DEAD after 2 attempts; forked"
                            + " children killed with the group; 1 GB printed: log %d bytes, executor peak RSS %d MiB;"
                            + " SIGTERM ignored: killed after %.1f s (timeout 2 s + grace %d s)",
                    log.length(),
                    peakKb / 1024,
                    killedAfter.stream().mapToDouble(d -> d).max().orElse(0),
                    s.settings.execution().killGrace().toSeconds()));
        });
    }

    /** A binary that starts a real daemon (setsid, stdio detached) and exits: the daemon must not survive. */
    @Test
    @Order(2)
    void aDaemonThatStartsItsOwnSessionDoesNotOutliveItsRun() throws Exception {
        scenario("12b. daemon in its own session (setsid)", s -> {
            s.startSweeperAndExecutors(1);
            List<JobView> jobs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                jobs.add(s.submit(
                        s.api, STARTS_A_DAEMON, "daemon-" + i, s.env(0, 0), Stage.now(), 60, 3, RunState.SUCCEEDED, 1));
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
                } catch (ConditionTimeoutException e) {
                    survivors.add(pid);
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
            assertThat(daemons).as("every binary started its daemon").hasSize(jobs.size());
            s.notes.add(survivors.size() + " of " + jobs.size() + " setsid daemons survived their run"
                    + (survivors.isEmpty() ? "" : " (pids " + survivors + ", killed by the suite)"));
            assertThat(survivors)
                    .as("daemons (setsid) that outlived their run: the executor kills only the"
                            + " binary's process group")
                    .isEmpty();
        });
    }
}
