package dev.punctual.core.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.PageKey;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.Transactions;
import dev.punctual.core.job.Job;
import dev.punctual.core.job.JobState;
import dev.punctual.core.limits.RunLimits;
import dev.punctual.core.queue.Delivery;
import dev.punctual.core.queue.RunMessage;
import dev.punctual.core.run.Change;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunIds;
import dev.punctual.core.run.RunRepository;
import dev.punctual.core.run.Transition;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.BinaryRequest;
import dev.punctual.core.service.BinaryView;
import dev.punctual.core.service.Ids;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.core.testing.TestStack;
import dev.punctual.core.time.SettableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** Shared helpers of the integration tests: raw clients on the emulators, binaries, jobs, queue inspection. */
final class Fixture {
    static final String OWNER = "local";
    /** Any well-formed sha256: jobs that are never executed do not need their binary's bytes. */
    static final String FAKE_SHA = "0".repeat(64);

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static DynamoDbClient dynamo;
    private static SqsClient sqs;
    private static S3Client s3;

    private Fixture() {}

    static synchronized DynamoDbClient dynamo() {
        if (dynamo == null) {
            dynamo = AwsClients.dynamo(TestStack.target());
        }
        return dynamo;
    }

    static synchronized SqsClient sqs() {
        if (sqs == null) {
            sqs = AwsClients.sqs(TestStack.target());
        }
        return sqs;
    }

    /** A client of the shared S3 emulator with {@code interceptor} on every call. */
    static S3Client s3With(ExecutionInterceptor interceptor) {
        var t = TestStack.target();
        return S3Client.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .endpointOverride(TestStack.aws().s3Endpoint())
                .region(t.region())
                .credentialsProvider(t.credentials())
                .forcePathStyle(true)
                .overrideConfiguration(o -> o.addExecutionInterceptor(interceptor))
                .build();
    }

    static synchronized S3Client s3() {
        if (s3 == null) {
            s3 = AwsClients.s3(TestStack.target());
        }
        return s3;
    }

    /**
     * A directory in {@code tmp} that the tests' binaries can write to: they run sandboxed, as users of their own,
     * wherever the tests run as root (as on CI here).
     */
    static Path shared(Path tmp) {
        try {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
            Path dir = Files.createDirectories(tmp.resolve("shared"));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An empty file in {@link #shared} that every run may append to, whatever user it is: a file a run creates
     * itself is its own user's, and a later run (another uid) could not write to it.
     */
    static Path witness(Path tmp) {
        try {
            Path w = Files.createFile(shared(tmp).resolve("w"));
            Files.setPosixFilePermissions(w, PosixFilePermissions.fromString("rw-rw-rw-"));
            return w;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client of the shared DynamoDB emulator whose calls fail, as if it were unreachable, when {@code fail} says. */
    static DynamoDbClient dynamoFailingWhen(Predicate<SdkRequest> fail) {
        return dynamoWith(new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                if (fail.test(c.request())) {
                    throw SdkClientException.create("injected: DynamoDB unreachable");
                }
            }
        });
    }

    /** A client of the shared DynamoDB emulator with {@code interceptor} on every call. */
    static DynamoDbClient dynamoWith(ExecutionInterceptor interceptor) {
        var t = TestStack.target();
        return DynamoDbClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .endpointOverride(t.dynamodb())
                .region(t.region())
                .credentialsProvider(t.credentials())
                .overrideConfiguration(o -> o.addExecutionInterceptor(interceptor))
                .build();
    }

    /** The next message of {@code p}'s queue within 10 s (one looked at again comes back after its invisibility). */
    static Delivery nextMessage(Punctual p) {
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < until) {
            List<Delivery> got = p.queues.receive(Priority.NORMAL, 1, 5, 30);
            if (!got.isEmpty()) {
                return got.get(0);
            }
        }
        throw new AssertionError("no message within 10 s");
    }

    static Punctual stack(Settings settings, Clock clock) {
        return TestStack.create(settings, clock);
    }

    /** A scheduler on a clock the test moves, standing at the current second, and one uploaded binary of OWNER. */
    record ClockedStack(SettableClock clock, Punctual p, String binaryId) {}

    static ClockedStack clockedStack() {
        SettableClock clock = new SettableClock(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        Punctual p = stack(TestStack.isolatedSettings().build(), clock);
        return new ClockedStack(clock, p, uploadBinary(p, OWNER, script("echo hi")));
    }

    /** A scheduler with the default settings whose clock stands at {@code now} (until the test moves it). */
    static Punctual stackAt(Instant now) {
        return stack(TestStack.isolatedSettings().build(), new SettableClock(now));
    }

    /** Settings for a scheduler with executors on real time: leases and grace periods of seconds, not minutes. */
    static Settings.Builder realTimeSettings() {
        return TestStack.isolatedSettings()
                .lease(Duration.ofSeconds(6))
                .heartbeat(Duration.ofSeconds(2))
                .shutdownGrace(Duration.ofSeconds(2));
    }

    /** {@link #realTimeSettings()} with retries, kills and two slots fast enough for a failing binary's retries. */
    static Settings.Builder fastRetries() {
        return realTimeSettings()
                .retryBase(Duration.ofSeconds(1))
                .retryCap(Duration.ofSeconds(2))
                .killGrace(Duration.ofSeconds(1))
                .executorConcurrency(2);
    }

    /** A scheduler on real time with {@link #realTimeSettings()}. */
    static Punctual realTimeStack() {
        return stack(realTimeSettings().build(), Clock.systemUTC());
    }

    /** Settings whose lease of {@code lease} is renewed every second: an executor loses it within seconds. */
    static Settings shortLease(Duration lease) {
        return TestStack.isolatedSettings()
                .lease(lease)
                .heartbeat(Duration.ofSeconds(1))
                .build();
    }

    /** The executor's side of a scheduler whose DynamoDB and S3 are the given clients (say, ones that fail). */
    static Punctual executorSide(Settings settings, DynamoDbClient dynamo, S3Client s3) {
        var t = TestStack.target();
        return new Punctual(dynamo, AwsClients.sqs(t), s3, AwsClients.presigner(t), settings, Clock.systemUTC());
    }

    // ---- binaries -------------------------------------------------------------------------------------------

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A {@code #!/bin/sh} script with the given body. */
    static byte[] script(String body) {
        return ("#!/bin/sh\n" + body + "\n").getBytes(StandardCharsets.UTF_8);
    }

    static BinaryView register(Punctual p, String owner, byte[] bytes) {
        return p.binaries.register(owner, new BinaryRequest("bin.sh", sha256(bytes), (long) bytes.length));
    }

    /**
     * PUTs {@code body} to the presigned URL with every signed header. Content-Length is one the JDK client does not
     * let callers set: it derives it from the body, which is what the signature pins anyway.
     */
    static HttpResponse<String> presignedPut(BinaryView view, byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(view.uploadUrl()))
                .timeout(Duration.ofSeconds(20))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body));
        view.uploadHeaders().forEach((name, value) -> {
            if (!Set.of("content-length", "host").contains(name.toLowerCase(Locale.ROOT))) {
                b.header(name, value);
            }
        });
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Registers and uploads (through the presigned URL) a binary; returns its id. */
    static String uploadBinary(Punctual p, String owner, byte[] bytes) {
        BinaryView v = register(p, owner, bytes);
        HttpResponse<String> r = presignedPut(v, bytes);
        assertThat(r.statusCode()).as("presigned PUT: %s", r.body()).isEqualTo(200);
        return v.id();
    }

    // ---- jobs and runs written straight through the repositories ----------------------------------------------

    static ScheduleSpec interval(Duration every, Instant start) {
        return ScheduleSpec.interval(every.toString(), start.toString(), null);
    }

    static ScheduleSpec once(Instant at) {
        return ScheduleSpec.once(at.toString());
    }

    /**
     * A request for one attempt with the default firing policy and no args; {@code env}, {@code timeout},
     * {@code secrets} and {@code limits} may each be null (the defaults).
     */
    static JobRequest request(
            String name,
            String binary,
            Map<String, String> env,
            ScheduleSpec at,
            Integer timeout,
            Map<String, String> secrets,
            RunLimits limits) {
        return JobRequest.builder(name, binary, at)
                .env(env)
                .timeoutSeconds(timeout)
                .maxAttempts(1)
                .secrets(secrets)
                .limits(limits)
                .build();
    }

    /** An ACTIVE job whose pending (SCHEDULED) run is due at {@code firstAt}, written in one transaction. */
    static Job insertJob(Punctual p, ScheduleSpec spec, Instant firstAt, Instant now, int maxAttempts) {
        // A null firing policy is the job's default one.
        return insertJob(p, spec, firstAt, now, maxAttempts, null);
    }

    /** {@link #insertJob} with a firing policy; the pending run is the occurrence {@code firstAt}, unjittered. */
    static Job insertJob(
            Punctual p,
            ScheduleSpec spec,
            Instant firstAt,
            Instant now,
            int maxAttempts,
            dev.punctual.core.firing.FiringPolicy firing) {
        return insertJob(p, OWNER, spec, firstAt, now, maxAttempts, j -> j.firing(firing));
    }

    /**
     * An ACTIVE job of {@code owner} and its pending run, due at {@code firstAt}, written straight to the tables in
     * one transaction (no API checks): a job named "job" of a binary never uploaded, unless {@code fields} say
     * otherwise.
     */
    static Job insertJob(
            Punctual p,
            String owner,
            ScheduleSpec spec,
            Instant firstAt,
            Instant now,
            int maxAttempts,
            UnaryOperator<Job.Builder> fields) {
        String jobId = Ids.next("job");
        Run run = Run.scheduled(jobId, RunIds.forOccurrence(firstAt), owner, firstAt, maxAttempts, now);
        Job job = fields.apply(Job.builder()
                        .id(jobId)
                        .owner(owner)
                        .name("job")
                        .binaryId("bin_x")
                        .binarySha256(FAKE_SHA)
                        .args(List.of())
                        .env(Map.of())
                        .schedule(spec)
                        .timeoutSeconds(60)
                        .maxAttempts(maxAttempts)
                        .state(JobState.ACTIVE)
                        .version(1)
                        .createdAt(now)
                        .updatedAt(now)
                        .pendingRunId(run.runId())
                        .nextRunAt(firstAt))
                .build();
        assertThat(p.tx.write(List.of(
                                p.jobs.insert(job),
                                p.runs.create(Change.of(Transition.SCHEDULE, run, run.createdAt()))))
                        .won())
                .isTrue();
        return job;
    }

    /** What an executor writes to claim the job's pending run at {@code at}, leased for {@code lease}. */
    static Transactions.Outcome claim(Punctual p, Job job, String executor, Instant at, Duration lease) {
        return claim(p, job.id(), job.pendingRunId(), executor, at, lease);
    }

    /** What an executor writes to claim run {@code runId} at {@code at}, leased for {@code lease}. */
    static Transactions.Outcome claim(
            Punctual p, String jobId, String runId, String executor, Instant at, Duration lease) {
        return p.tx.write(List.of(
                p.jobs.conditionRunnable(jobId),
                p.runs.write(Change.of(Transition.CLAIM, jobId, runId, at).withLease(executor, at.plus(lease)))));
    }

    /** Executor {@code executor}'s outcome (SUCCEED, FAIL) of attempt {@code attempt}: exit code {@code code}. */
    static Change outcome(
            Transition outcome, String jobId, String runId, Instant at, int attempt, String executor, int code) {
        return Change.of(outcome, jobId, runId, at)
                .withAttempt(attempt)
                .withExecutor(executor)
                .withExitCode(code);
    }

    /**
     * The API's delete of job {@code jobId} of {@code owner}, expecting the pending run {@code pendingRunId} (null:
     * none), alone in a transaction; whether it won.
     */
    static boolean markDeleted(Punctual p, String jobId, String owner, String pendingRunId, Instant at) {
        return p.tx.write(List.of(p.jobs.markDeleted(jobId, owner, pendingRunId, at)))
                .won();
    }

    /** What the dispatcher writes once it has sent the job's pending run; whether it won. */
    static boolean markQueued(Punctual p, Job job, Instant at) {
        return p.tx.write(List.of(p.runs.write(Change.of(Transition.MARK_QUEUED, job.id(), job.pendingRunId(), at))))
                .won();
    }

    /**
     * What executor {@code executor}, holding attempt {@code attempt}, writes when its binary's exit {@code code}
     * ends the run DEAD; DIE is written against the run as it stands now. Whether it won.
     */
    static boolean die(
            Punctual p, String jobId, String runId, Instant at, int attempt, String executor, int code, String error) {
        return p.runs.apply(Change.of(Transition.DIE, run(p, jobId, runId), at)
                        .withAttempt(attempt)
                        .withExecutor(executor)
                        .withExitCode(code)
                        .withError(error))
                .won();
    }

    /** {@link #claim(Punctual, Job, String, Instant, Duration)} with a 60 s lease; whether it won. */
    static boolean claim(Punctual p, Job job, String executor, Instant at) {
        return claim(p, job, executor, at, Duration.ofSeconds(60)).won();
    }

    /** A job of {@link #OWNER} whose binary is the script {@code body}, created through the API. */
    static JobView createJob(
            Punctual p, String name, String body, ScheduleSpec schedule, UnaryOperator<JobRequest.Builder> fields) {
        String binaryId = uploadBinary(p, OWNER, script(body));
        return p.jobService.create(
                OWNER,
                fields.apply(JobRequest.builder(name, binaryId, schedule)).build());
    }

    /** The env that names the witness file a script appends to. */
    static Map<String, String> witnessEnv(Path witness) {
        return Map.of("WITNESS", witness.toString());
    }

    /** A job, due now, whose binary appends "ran <attempt>" to the witness file. */
    static JobView attemptWitnessJob(Punctual p, String name, Path witness, int maxAttempts) {
        return witnessJob(p, name, "echo \"ran $SCHEDULER_ATTEMPT\" >> \"$WITNESS\"", witness, 60, maxAttempts);
    }

    /** A job, due now and with no arguments, whose binary is {@code body}, given the witness file. */
    static JobView witnessJob(Punctual p, String name, String body, Path witness, int timeoutSeconds, int maxAttempts) {
        return createJob(
                p,
                name,
                body,
                ScheduleSpec.now(),
                j -> j.args(List.of())
                        .env(witnessEnv(witness))
                        .timeoutSeconds(timeoutSeconds)
                        .maxAttempts(maxAttempts));
    }

    static Job insertOnceJob(Punctual p, Instant at, Instant now) {
        return insertJob(p, once(at), at, now, 3);
    }

    static Map<String, AttributeValue> rawRun(Punctual p, String jobId, String runId) {
        return dynamo().getItem(b -> b.tableName(p.resources.runs().name())
                        .consistentRead(true)
                        .key(Map.of(
                                Resources.JOB_ID,
                                AttributeValue.fromS(jobId),
                                Resources.RUN_ID,
                                AttributeValue.fromS(runId))))
                .item();
    }

    static Run run(Punctual p, String jobId, String runId) {
        return p.runs.get(jobId, runId).orElseThrow();
    }

    /** The job's one run: asserts that it has exactly one. */
    static Run onlyRun(Punctual p, String jobId) {
        List<Run> runs = runsOf(p, jobId);
        assertThat(runs).hasSize(1);
        return runs.get(0);
    }

    /** The job's newest run. */
    static Run latestRun(Punctual p, String jobId) {
        return p.runs.listForJob(jobId, 1, null).items().get(0);
    }

    /** The occurrences {@code start}, {@code start + every}, … up to {@code until}, inclusive. */
    static List<Instant> every(Duration every, Instant start, Instant until) {
        List<Instant> out = new ArrayList<>();
        for (Instant t = start; !t.isAfter(until); t = t.plus(every)) {
            out.add(t);
        }
        return out;
    }

    /** Every run of a job, oldest first. */
    static List<Run> runsOf(Punctual p, String jobId) {
        List<Run> out = new ArrayList<>();
        PageKey start = null;
        do {
            RunRepository.PageOfRuns page = p.runs.listForJob(jobId, 100, start);
            out.addAll(page.items());
            start = page.lastKey();
        } while (start != null);
        return out.reversed();
    }

    static int countItems(Punctual p, String table) {
        return dynamo().scan(b -> b.tableName(table).consistentRead(true)).count();
    }

    // ---- the queue -----------------------------------------------------------------------------------------

    /** Visible, delayed and in-flight message counts of the run queue. */
    record QueueCounts(int visible, int delayed, int inFlight) {
        int total() {
            return visible + delayed + inFlight;
        }
    }

    static QueueCounts queueCounts(Punctual p) {
        // Deletes of handled messages are sent in batches, within a second: count after they are sent.
        p.queue.flushDeletes();
        Map<QueueAttributeName, String> a = sqs().getQueueAttributes(b -> b.queueUrl(p.queue.url())
                        .attributeNames(
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED,
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                .attributes();
        return new QueueCounts(
                Integer.parseInt(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)),
                Integer.parseInt(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED)),
                Integer.parseInt(a.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)));
    }

    /** Receives what is visible now (short poll), keeping it invisible for a minute; returns the decoded bodies. */
    static List<RunMessage> receiveVisible(Punctual p) {
        return receiveVisible(p, Priority.NORMAL);
    }

    /** Every message visible now in {@code lane}'s queue (each hidden for a minute). */
    static List<RunMessage> receiveVisible(Punctual p, Priority lane) {
        List<RunMessage> out = new ArrayList<>();
        List<Delivery> got;
        do {
            got = p.queues.receive(lane, 10, 0, 60);
            got.forEach(m -> out.add(RunMessage.decode(m.body())));
        } while (!got.isEmpty());
        return out;
    }

    // ---- witness files -------------------------------------------------------------------------------------

    static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
