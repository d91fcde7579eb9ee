package dev.punctual.core.it;

import static dev.punctual.core.it.Fixture.OWNER;
import static dev.punctual.core.it.Fixture.lines;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.binary.ArtifactStore;
import dev.punctual.core.config.Settings;
import dev.punctual.core.error.FieldError;
import dev.punctual.core.error.ValidationException;
import dev.punctual.core.exec.ExecutorPool;
import dev.punctual.core.exec.ProcessRunner;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.JobState;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunState;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Executors running real {@code #!/bin/sh} binaries from S3Proxy, claiming through DynamoDB Local and receiving
 * from ElasticMQ, all on real time. Scripts report what they saw by appending to a witness file named in their env.
 */
class ExecutorTest {
    private static final ScheduleSpec NOW = ScheduleSpec.now();

    @TempDir
    Path tmp;

    @RegisterExtension
    final ExecutorPools executors = new ExecutorPools();

    private Punctual p;

    /** Short leases, retries and grace periods, so that everything happens within seconds. */
    private static Settings.Builder fast() {
        return Fixture.fastRetries();
    }

    private void stack(Settings.Builder settings) {
        p = Fixture.stack(settings.build(), Clock.systemUTC());
    }

    /** {@link #fast()} settings, executor "ex-1" started; the witness file. */
    private Path fastStackWithAnExecutor() {
        stack(fast());
        executor("ex-1");
        return Fixture.witness(tmp);
    }

    /** {@link #fast()} settings with a 3 s lease renewed every second, no executor yet; the witness file. */
    private Path shortLeaseStack() {
        stack(fast().lease(Duration.ofSeconds(3)).heartbeat(Duration.ofSeconds(1)));
        return Fixture.witness(tmp);
    }

    private ExecutorPool executor(String id) {
        return executors.start(p, id, tmp.resolve(id));
    }

    private JobView create(String scriptBody, ScheduleSpec schedule, UnaryOperator<JobRequest.Builder> fields) {
        return Fixture.createJob(p, "test job", scriptBody, schedule, fields);
    }

    /** A job whose script is given the witness file. */
    private JobView create(String scriptBody, ScheduleSpec schedule, Path witness) {
        return create(scriptBody, schedule, j -> j.env(Fixture.witnessEnv(witness)));
    }

    private JobView createNow(String scriptBody, Path witness) {
        return create(scriptBody, NOW, witness);
    }

    private Run onlyRun(JobView job) {
        return Fixture.onlyRun(p, job.id());
    }

    private RunState stateOf(JobView job) {
        return onlyRun(job).state();
    }

    @Test
    void aNowJobRunsOnceAtOnceSucceedsAndItsLogHoldsItsOutput() {
        Path witness = fastStackWithAnExecutor();

        JobView job = createNow("echo \"hello from $SCHEDULER_RUN_ID\"\necho ran >> \"$WITNESS\"", witness);

        await().atMost(Duration.ofSeconds(15)).until(() -> stateOf(job) == RunState.SUCCEEDED);
        Run r = onlyRun(job);
        assertThat(r.exitCode()).isZero();
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(r.leaseOwner()).isEqualTo("ex-1");
        assertThat(r.error()).isNull();
        assertThat(Duration.between(r.scheduledAt(), r.startedAt()))
                .isGreaterThanOrEqualTo(Duration.ZERO)
                .isLessThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(p.jobService.log(OWNER, job.id(), r.runId())).contains("hello from " + r.runId());
        assertThat(lines(witness)).containsExactly("ran");
        assertThat(p.jobService.get(OWNER, job.id()).state()).isEqualTo(JobState.COMPLETED.name());
        await().atMost(Duration.ofSeconds(5)).until(() -> Fixture.queueCounts(p).total() == 0);
    }

    @Test
    void aFailingBinaryIsRetriedUntilDeadAfterExactlyMaxAttempts() {
        // Every transition the executor makes is logged, one line each.
        List<String> events = new CopyOnWriteArrayList<>();
        java.util.logging.Logger eventLog = java.util.logging.Logger.getLogger("dev.punctual.core.exec.RunEvents");
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                events.add(r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        eventLog.addHandler(capture);
        Path witness = fastStackWithAnExecutor();

        JobView job = create(
                "echo \"$SCHEDULER_ATTEMPT\" >> \"$WITNESS\"\necho failing $SCHEDULER_ATTEMPT\nexit 3",
                NOW,
                j -> j.env(Fixture.witnessEnv(witness)).maxAttempts(3));

        await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(job) == RunState.DEAD);
        Run r = onlyRun(job);
        assertThat(r.attempt()).isEqualTo(3);
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.error()).isEqualTo("exited with code 3");
        assertThat(lines(witness)).containsExactly("1", "2", "3");
        // Each attempt's output is small. The last one's is kept on the run; those retried went to the bucket
        // under their attempt numbers, as the run item holds one log only.
        assertThat(p.store.logKeys(job.id(), r.runId()))
                .containsExactlyInAnyOrder(
                        ArtifactStore.logKey(job.id(), r.runId(), 1), ArtifactStore.logKey(job.id(), r.runId(), 2));
        assertThat(r.log()).isEqualTo("failing 3\n");
        assertThat(p.jobService.log(OWNER, job.id(), r.runId())).isEqualTo("failing 3\n");
        assertThat(p.jobService.log(OWNER, job.id(), r.runId(), 1)).isEqualTo("failing 1\n");
        assertThat(p.jobService.log(OWNER, job.id(), r.runId(), 2)).isEqualTo("failing 2\n");
        assertThat(p.jobService.log(OWNER, job.id(), r.runId(), 3)).isEqualTo("failing 3\n");
        // The two retried attempts are kept in the run's history, each with its start, end and exit code; the
        // last one's facts are the run's own.
        assertThat(p.jobService.run(OWNER, job.id(), r.runId()).attempts())
                .satisfiesExactly(
                        a -> assertThat(a.attempt()).isEqualTo(1),
                        a -> assertThat(a.attempt()).isEqualTo(2));
        assertThat(p.jobService.run(OWNER, job.id(), r.runId()).attempts()).allSatisfy(a -> {
            assertThat(a.exitCode()).isEqualTo(3);
            assertThat(a.error()).isEqualTo("exited with code 3");
            assertThat(Instant.parse(a.startedAt())).isBeforeOrEqualTo(Instant.parse(a.finishedAt()));
        });
        assertThatThrownBy(() -> p.jobService.log(OWNER, job.id(), r.runId(), 4))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactly("attempt"));
        eventLog.removeHandler(capture);
        assertThat(events.stream()
                        .filter(e -> e.contains("run=" + r.runId()))
                        .map(e -> e.replaceAll(" job=.* attempt=(\\d+).*", " $1"))
                        .toList())
                .containsExactly(
                        "run STARTED 1",
                        "run FAILED 1",
                        "run STARTED 2",
                        "run FAILED 2",
                        "run STARTED 3",
                        "run DEAD 3");
        // No fourth attempt: the message is gone.
        await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(5))
                .until(() -> lines(witness).size() == 3);
        assertThat(Fixture.queueCounts(p).total()).isZero();
    }

    @Test
    void aNonRetryableExitCodeIsDeadAtOnceWhileOtherFailuresAreRetried() {
        Path witness = fastStackWithAnExecutor();
        // Exits 2 on the first attempt (retryable), then 64 (listed as non-retryable).
        JobView job = Fixture.createJob(
                p,
                "usage error",
                "echo \"$SCHEDULER_ATTEMPT\" >> \"$WITNESS\"\n[ \"$SCHEDULER_ATTEMPT\" = 1 ] && exit 2\nexit 64",
                NOW,
                j -> j.env(Fixture.witnessEnv(witness)).maxAttempts(5).nonRetryableExitCodes(List.of(64, 78)));
        assertThat(job.nonRetryableExitCodes()).containsExactly(64, 78);

        await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(job) == RunState.DEAD);
        Run r = onlyRun(job);
        assertThat(r.attempt())
                .as("attempt 1 (exit 2) was retried; attempt 2 (exit 64) was not")
                .isEqualTo(2);
        assertThat(r.exitCode()).isEqualTo(64);
        assertThat(r.error()).isEqualTo("exited with code 64 (non-retryable)");
        assertThat(lines(witness)).containsExactly("1", "2");
        assertThat(p.jobService.get(OWNER, job.id()).nonRetryableExitCodes()).containsExactly(64, 78);
    }

    @Test
    void theBinarySeesItsArgsTheSchedulerVariablesAndItsOwnEnvButNothingOfTheExecutor() {
        Path witness = fastStackWithAnExecutor();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("WITNESS", witness.toString());
        env.put("GREETING", "hi there");

        JobView job = create(
                "env > \"$WITNESS\"\nprintf '%s\\n' \"$@\" > \"$WITNESS.args\"",
                NOW, j -> j.env(env).args(List.of("one arg", "$HOME", "*")));

        await().atMost(Duration.ofSeconds(15)).until(() -> stateOf(job) == RunState.SUCCEEDED);
        Run r = onlyRun(job);
        Map<String, String> seen = new LinkedHashMap<>();
        for (String line : lines(witness)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                seen.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        assertThat(seen)
                .containsEntry("SCHEDULER_JOB_ID", job.id())
                .containsEntry("SCHEDULER_RUN_ID", r.runId())
                .containsEntry("SCHEDULER_ATTEMPT", "1")
                .containsEntry("SCHEDULER_SCHEDULED_AT", r.scheduledAt().toString())
                .containsEntry("SCHEDULER_IDEMPOTENCY_KEY", job.id() + "@" + r.scheduledAt())
                .containsEntry("GREETING", "hi there")
                .containsEntry("WITNESS", witness.toString())
                .containsEntry("PATH", ProcessRunner.SAFE_PATH);
        assertThat(seen.keySet()).noneMatch(k -> k.startsWith("AWS_"));
        assertThat(seen.keySet()).noneMatch(k -> k.startsWith("LD_"));
        // Only what the runner passes, plus what sh itself sets.
        Set<String> allowed = new HashSet<>(Set.of(
                "SCHEDULER_JOB_ID",
                "SCHEDULER_RUN_ID",
                "SCHEDULER_ATTEMPT",
                "SCHEDULER_SCHEDULED_AT",
                "SCHEDULER_IDEMPOTENCY_KEY",
                ProcessRunner.TAG,
                "GREETING",
                "WITNESS",
                "PATH",
                "HOME",
                "TMPDIR",
                "PWD",
                "OLDPWD",
                "SHLVL",
                "_"));
        assertThat(allowed).containsAll(seen.keySet());
        assertThat(seen.get("HOME")).isNotEqualTo(System.getProperty("user.home"));
        // Arguments reach the binary as they are: no shell expands or splits them.
        assertThat(lines(Path.of(witness + ".args"))).containsExactly("one arg", "$HOME", "*");
    }

    @Test
    void aBinaryPastItsTimeoutIsKilledWithItsChildren() {
        Path witness = fastStackWithAnExecutor();

        JobView job = create(
                "sleep 30 &\necho $! > \"$WITNESS\"\nwait",
                NOW,
                j -> j.env(Fixture.witnessEnv(witness)).timeoutSeconds(1).maxAttempts(1));

        await().atMost(Duration.ofSeconds(15)).until(() -> stateOf(job).terminal());
        Run r = onlyRun(job);
        assertThat(r.state()).isEqualTo(RunState.DEAD);
        assertThat(r.error()).contains("timed out");
        assertThat(Duration.between(r.startedAt(), r.finishedAt())).isLessThan(Duration.ofSeconds(10));
        long child = Long.parseLong(lines(witness).get(0).trim());
        await().atMost(Duration.ofSeconds(5))
                .until(() -> ProcessHandle.of(child).map(h -> !h.isAlive()).orElse(true));
    }

    @Test
    void theSameMessageDeliveredThreeTimesToTwoExecutorsRunsTheBinaryOnceEvenPastTheLease() {
        // The binary runs longer than the lease: only the heartbeats keep the other executor from taking over.
        Path witness = shortLeaseStack();
        JobView job = createNow("echo \"$SCHEDULER_ATTEMPT\" >> \"$WITNESS\"\nsleep 5", witness);
        Run queued = onlyRun(job);
        assertThat(queued.state()).isEqualTo(RunState.QUEUED);
        RunMessage m = new RunMessage(job.id(), queued.runId(), queued.scheduledAt());
        assertThat(p.queue.sendBatch(List.of(m, m), Instant.now())).hasSize(2);

        executor("ex-a");
        executor("ex-b");

        await().atMost(Duration.ofSeconds(20)).until(() -> stateOf(job) == RunState.SUCCEEDED);
        assertThat(onlyRun(job).attempt()).isEqualTo(1);
        assertThat(lines(witness)).containsExactly("1");
        // The copies that lost to the live lease come back after their visibility timeout and are dropped.
        await().atMost(Duration.ofSeconds(15))
                .until(() -> Fixture.queueCounts(p).total() == 0);
        assertThat(lines(witness)).containsExactly("1");
        assertThat(onlyRun(job).state()).isEqualTo(RunState.SUCCEEDED);
    }

    @Test
    void aRunWhoseExecutorDiedIsTakenOverAfterTheLeaseAndTheDeadHolderIsFencedOff() {
        Path witness = shortLeaseStack();
        JobView job = createNow("echo \"$SCHEDULER_ATTEMPT\" >> \"$WITNESS\"", witness);
        Run queued = onlyRun(job);
        // A "ghost" executor claims the run and dies: nobody heartbeats its two-second lease.
        Instant now = Instant.now();
        Transactions.Outcome ghost = Fixture.claim(p, job.id(), queued.runId(), "ghost", now, Duration.ofSeconds(2));
        assertThat(ghost.won()).isTrue();

        executor("ex-1");

        await().atMost(Duration.ofSeconds(20)).until(() -> stateOf(job) == RunState.SUCCEEDED);
        Run r = onlyRun(job);
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.leaseOwner()).isEqualTo("ex-1");
        assertThat(lines(witness)).containsExactly("2");
        Instant later = Instant.now();
        assertThat(p.runs.apply(Change.of(Transition.HEARTBEAT, job.id(), r.runId(), later)
                                .withAttempt(1)
                                .withLease("ghost", later.plusSeconds(3)))
                        .won())
                .isFalse();
        assertThat(Fixture.die(p, job.id(), r.runId(), later, 1, "ghost", 1, "late"))
                .isFalse();
        assertThat(onlyRun(job).state()).isEqualTo(RunState.SUCCEEDED);
    }

    @Test
    void aJobDeletedWhileItsRunWaitsInTheQueueNeverRuns() {
        Path witness = fastStackWithAnExecutor();
        Instant due = Instant.now().plusSeconds(4);
        JobView job = create("echo ran >> \"$WITNESS\"", ScheduleSpec.once(due.toString()), witness);
        assertThat(stateOf(job)).as("sent at creation, delayed to its due time").isEqualTo(RunState.QUEUED);

        p.deletions.delete(OWNER, job.id());

        assertThat(p.jobService.get(OWNER, job.id()).state()).isEqualTo(JobState.DELETED.name());
        // Cancelled by the delete itself, before it answered, not when its message comes.
        Run r = onlyRun(job);
        assertThat(r.state()).isEqualTo(RunState.CANCELLED);
        assertThat(r.error()).isEqualTo("job deleted");
        assertThat(r.attempt()).isZero();
        // Its message still comes at the due time, and goes: the executor finds the run over.
        await().atMost(Duration.ofSeconds(15))
                .until(() ->
                        !Instant.now().isBefore(due) && Fixture.queueCounts(p).total() == 0);
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(4))
                .until(() -> Fixture.lines(witness).isEmpty());
        assertThat(onlyRun(job).state()).isEqualTo(RunState.CANCELLED);
    }

    @Test
    void aFiveSecondIntervalRunsRepeatedlyAndStopsAfterDelete() {
        stack(fast().minInterval(Duration.ofSeconds(5)));
        executor("ex-1");
        Path witness = Fixture.witness(tmp);
        JobView job = create(
                "echo \"$SCHEDULER_RUN_ID\" >> \"$WITNESS\"", ScheduleSpec.interval("PT5S", null, null), witness);

        await().atMost(Duration.ofSeconds(20)).until(() -> lines(witness).size() >= 2);
        p.deletions.delete(OWNER, job.id());
        Instant deletedAt = Instant.now();

        // A run claimed just before the delete may still finish; after that, nothing more runs.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Fixture.runsOf(p, job.id()).stream().noneMatch(r -> r.state() == RunState.RUNNING));
        int ran = lines(witness).size();
        await().during(Duration.ofSeconds(6))
                .atMost(Duration.ofSeconds(8))
                .until(() -> lines(witness).size() == ran);

        List<String> runIds = lines(witness);
        assertThat(runIds).doesNotHaveDuplicates();
        List<Run> runs = Fixture.runsOf(p, job.id());
        assertThat(runs.stream().filter(r -> r.state() == RunState.SUCCEEDED).map(Run::runId))
                .containsExactlyElementsOf(runIds);
        // Occurrences that came due after the delete were cancelled when their message arrived.
        assertThat(runs).anySatisfy(r -> {
            assertThat(r.scheduledAt()).isAfter(deletedAt.truncatedTo(ChronoUnit.SECONDS));
            assertThat(r.state()).isEqualTo(RunState.CANCELLED);
        });
        assertThat(runs).noneMatch(r -> r.state() == RunState.SCHEDULED);
        assertThat(p.jobService.get(OWNER, job.id()).state()).isEqualTo(JobState.DELETED.name());
    }

    @Test
    void aMessageDeliveredBeforeItsDueTimeIsPutBackAndTheRunNeverStartsEarly() {
        stack(fast());
        Path witness = Fixture.witness(tmp);
        Instant due = Instant.now().plusSeconds(4);
        JobView job = create("echo ran >> \"$WITNESS\"", ScheduleSpec.once(due.toString()), witness);
        Run queued = onlyRun(job);
        // A copy without any delay: the executor gets it about four seconds early.
        RunMessage m = new RunMessage(job.id(), queued.runId(), queued.scheduledAt());
        assertThat(p.queue.sendBatch(List.of(m), queued.scheduledAt())).hasSize(1);
        executor("ex-1");

        await().atMost(Duration.ofSeconds(15)).until(() -> stateOf(job) == RunState.SUCCEEDED);
        Run r = onlyRun(job);
        assertThat(r.startedAt()).isAfterOrEqualTo(r.scheduledAt());
        assertThat(Duration.between(r.scheduledAt(), r.startedAt())).isLessThanOrEqualTo(Duration.ofSeconds(2));
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(lines(witness)).containsExactly("ran");
    }

    @Test
    void aBinaryWhoseStoredBytesDoNotMatchItsSha256IsNeverRun() {
        Path witness = fastStackWithAnExecutor();
        byte[] registeredBytes = Fixture.script("echo good >> \"$WITNESS\"");
        byte[] storedBytes = Fixture.script("echo EVIL >> \"$WITNESS\"");
        assertThat(storedBytes).hasSameSizeAs(registeredBytes);
        var binary = Fixture.register(p, OWNER, registeredBytes);
        // Bypasses the presigned checksum: someone with bucket access overwrote the object.
        Fixture.s3()
                .putObject(
                        b -> b.bucket(p.resources.bucket()).key(ArtifactStore.binaryKey(OWNER, binary.sha256())),
                        software.amazon.awssdk.core.sync.RequestBody.fromBytes(storedBytes));

        JobView job = p.jobService.create(
                OWNER,
                JobRequest.builder("tampered", binary.id(), NOW)
                        .env(Fixture.witnessEnv(witness))
                        .maxAttempts(1)
                        .build());

        await().atMost(Duration.ofSeconds(15)).until(() -> stateOf(job).terminal());
        Run r = onlyRun(job);
        assertThat(r.state()).isEqualTo(RunState.DEAD);
        assertThat(r.error()).startsWith("could not start").contains("downloaded with sha256");
        assertThat(Fixture.lines(witness)).isEmpty();
    }

    @Test
    void aLogUpToTheInlineSizeIsKeptOnTheRunAndALargerOneGoesToS3() {
        stack(fast().inlineLogBytes(10));
        executor("ex-1");

        // "123456789\n" is 10 bytes: at the limit; one more byte is over it.
        JobView small = create("echo 123456789", NOW, j -> j.env(Map.of()));
        JobView large = create("echo 1234567890", NOW, j -> j.env(Map.of()));

        await().atMost(Duration.ofSeconds(15))
                .until(() -> stateOf(small) == RunState.SUCCEEDED && stateOf(large) == RunState.SUCCEEDED);
        Run s = onlyRun(small);
        assertThat(s.log()).isEqualTo("123456789\n");
        assertThat(s.logKey()).isNull();
        assertThat(p.store.logKeys(small.id(), s.runId())).isEmpty();
        assertThat(p.jobService.log(OWNER, small.id(), s.runId())).isEqualTo("123456789\n");
        Run l = onlyRun(large);
        assertThat(l.log()).isNull();
        assertThat(l.logKey()).isEqualTo(ArtifactStore.logKey(large.id(), l.runId(), 1));
        assertThat(p.jobService.log(OWNER, large.id(), l.runId())).isEqualTo("1234567890\n");
    }

    @Test
    void outputBeyondTheLogCapIsCutAndMarked() {
        stack(fast().logCapBytes(100));
        executor("ex-1");

        JobView job = create(
                "i=0\nwhile [ $i -lt 100 ]; do echo \"line $i of output\"; i=$((i+1)); done",
                NOW,
                j -> j.env(Map.of()));

        await().atMost(Duration.ofSeconds(15)).until(() -> stateOf(job) == RunState.SUCCEEDED);
        String log = p.jobService.log(OWNER, job.id(), onlyRun(job).runId());
        assertThat(log)
                .startsWith("line 0 of output")
                .contains("[punctual: output truncated at 100 bytes]")
                .doesNotContain("line 99");
    }

    @Test
    void aRunStillGoingWhenItsExecutorShutsDownIsKilledReleasedAndFinishedByAnother() {
        stack(fast().shutdownGrace(Duration.ofSeconds(1)));
        Path witness = Fixture.witness(tmp);
        ExecutorPool first = executor("ex-1");
        JobView job = create(
                "echo \"$SCHEDULER_ATTEMPT\" >> \"$WITNESS\"\n"
                        + "if [ \"$SCHEDULER_ATTEMPT\" = 1 ]; then sleep 30; fi",
                NOW,
                j -> j.env(Fixture.witnessEnv(witness)).maxAttempts(2));
        await().atMost(Duration.ofSeconds(10)).until(() -> lines(witness).size() == 1);

        first.close();

        Run released = onlyRun(job);
        assertThat(released.state()).isEqualTo(RunState.FAILED);
        assertThat(released.error()).isEqualTo("executor shutting down");
        executor("ex-2");
        await().atMost(Duration.ofSeconds(10)).until(() -> stateOf(job) == RunState.SUCCEEDED);
        Run r = onlyRun(job);
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(r.leaseOwner()).isEqualTo("ex-2");
        assertThat(lines(witness)).containsExactly("1", "2");
    }
}
