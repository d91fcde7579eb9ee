package dev.punctual.faults;

import static org.awaitility.Awaitility.await;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.Provisioner;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.run.Run;
import dev.punctual.core.run.RunItems;
import dev.punctual.core.run.RunState;
import dev.punctual.core.schedule.Schedule;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.BinaryRequest;
import dev.punctual.core.service.BinaryView;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.service.JobView;
import dev.punctual.emulators.EmbeddedAws;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * One scenario's world: its own resource prefix on the emulators (fresh tables, queue, bucket), a witness file,
 * executor processes, sweeper threads, the jobs it submitted with what their binaries dictate, and the checker that
 * compares all of that after the faults have healed and the work has drained.
 */
final class Stage implements AutoCloseable {
    /** Where the emulators are, for core's clients. */
    static AwsClients.Target target(EmbeddedAws aws) {
        return AwsClients.Target.emulators(aws.dynamodbEndpoint(), aws.sqsEndpoint(), aws.s3Endpoint());
    }

    static final String OWNER = "local";
    /** The last check of the scenario running on this thread, for the report when a later assertion fails. */
    static final ThreadLocal<Checker.Result> LAST = new ThreadLocal<>();

    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The suite's binary: witnesses its start and end, sleeps as told, exits as told. */
    static final String WORKER = """
            #!/bin/sh
            echo "start $SCHEDULER_JOB_ID $SCHEDULER_RUN_ID $SCHEDULER_ATTEMPT $(date +%s%N) $$" >> "$WITNESS"
            sleep "$SLEEP"
            echo "end $SCHEDULER_JOB_ID $SCHEDULER_RUN_ID $SCHEDULER_ATTEMPT $(date +%s%N) $$ $EXIT" >> "$WITNESS"
            exit "$EXIT"
            """;

    /** What a job's binary dictates: how many runs, their final state, and how many starts that takes. */
    record Expect(String jobId, String name, int occurrences, RunState finalState, int dictatedStarts) {}

    final String name;
    final Path dir;
    final Map<String, String> overrides;
    final Settings settings;
    final AwsClients.Target target;
    final DynamoDbClient dynamo;
    final SqsClient sqs;
    /** The API and sweeper side, on healthy clients unless a scenario builds its own. */
    final Punctual api;

    final Witness witness;
    final List<Exec> executors = new CopyOnWriteArrayList<>();
    final List<Sweeping> sweepers = new CopyOnWriteArrayList<>();
    final Map<String, Expect> expected = new ConcurrentHashMap<>();
    final List<String> notes = new CopyOnWriteArrayList<>();
    final long startedNs = System.nanoTime();
    private final Map<String, String> binaries = new ConcurrentHashMap<>();
    private final AtomicInteger execCounter = new AtomicInteger();

    Stage(String name, AwsClients.Target target, Path root, Map<String, String> overrides) throws IOException {
        this.name = name;
        String prefix = "f" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
        this.dir = Files.createDirectories(root.resolve(name.replaceAll("[^A-Za-z0-9]+", "-") + "-" + prefix));
        this.overrides = new LinkedHashMap<>(overrides);
        this.settings = FaultSettings.build(prefix, this.overrides);
        this.target = target;
        this.dynamo = AwsClients.dynamo(target);
        this.sqs = AwsClients.sqs(target);
        provision();
        this.api = punctual(dynamo, sqs, Clock.systemUTC());
        this.witness = new Witness(dir.resolve("witness.log"));
        // The binaries run sandboxed, as users of their own (the executors are root here, as on CI): they reach
        // the witness file through the root, append to it, and leave files of their own ($FAULT_DIR) in the dir.
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(witness.file(), PosixFilePermissions.fromString("rw-rw-rw-"));
    }

    void provision() {
        Provisioner.provision(target, new Resources(settings));
    }

    Punctual punctual(DynamoDbClient d, SqsClient q, Clock clock) {
        return new Punctual(d, q, AwsClients.s3(target), AwsClients.presigner(target), settings, clock);
    }

    /** A DynamoDB client whose HTTP layer answers a fraction of calls with throttling or 5xx (see FaultyHttpClient). */
    DynamoDbClient faultyDynamo(FaultyHttpClient http) {
        return FaultClients.dynamo(target, http, List.of());
    }

    static FaultyHttpClient faultyHttp(java.util.function.DoubleSupplier rate) {
        return new FaultyHttpClient(UrlConnectionHttpClient.create(), rate);
    }

    // ---- binaries and jobs -------------------------------------------------------------------------------------

    /** Registers and uploads (through the presigned PUT, as a user would) a shell script; cached by body. */
    String binary(String script) {
        return binaries.computeIfAbsent(script, s -> {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            String sha;
            try {
                sha = HexFormat.of()
                        .formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            BinaryView v = api.binaries.register(OWNER, new BinaryRequest("bin.sh", sha, (long) bytes.length));
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(v.uploadUrl()))
                    .timeout(Duration.ofSeconds(30))
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes));
            v.uploadHeaders().forEach((k, val) -> {
                if (!Set.of("content-length", "host").contains(k.toLowerCase(Locale.ROOT))) {
                    b.header(k, val);
                }
            });
            try {
                HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("upload failed: " + r.statusCode() + " " + r.body());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return v.id();
        });
    }

    static ScheduleSpec now() {
        return ScheduleSpec.now();
    }

    static ScheduleSpec once(Instant at) {
        return ScheduleSpec.once(at.toString());
    }

    static ScheduleSpec interval(Duration every, Instant start, Instant end) {
        return ScheduleSpec.interval(every.toString(), start.toString(), end.toString());
    }

    /** The env a WORKER-style binary reads. */
    Map<String, String> env(double sleepSeconds, int exit) {
        Map<String, String> env = new HashMap<>();
        env.put("WITNESS", witness.file().toString());
        env.put("SLEEP", String.format(Locale.ROOT, "%.2f", sleepSeconds));
        env.put("EXIT", Integer.toString(exit));
        env.put("FAULT_DIR", dir.toString());
        return env;
    }

    /** Submits through {@code p}'s JobService (the API's code path); on success the job is accepted. */
    JobView submit(
            Punctual p,
            String script,
            String jobName,
            Map<String, String> env,
            ScheduleSpec schedule,
            int timeoutSeconds,
            int maxAttempts,
            RunState finalState,
            int dictatedStarts) {
        JobView v = p.jobService.create(
                OWNER,
                JobRequest.builder(jobName, binary(script), schedule)
                        .args(List.of())
                        .env(env)
                        .timeoutSeconds(timeoutSeconds)
                        .maxAttempts(maxAttempts)
                        .build());
        expected.put(
                v.id(),
                new Expect(
                        v.id(),
                        jobName,
                        occurrences(p, schedule, Instant.parse(v.createdAt())),
                        finalState,
                        dictatedStarts));
        return v;
    }

    /**
     * Submits {@code n} WORKER jobs scheduled now: every tenth always exits 1 (so it must end DEAD after its
     * {@code maxAttempts = 2}), the others exit 0; each sleeps a little, {@code minSleep..maxSleep} seconds.
     */
    List<JobView> submitWorkers(Punctual p, int n, double minSleep, double maxSleep, Supplier<ScheduleSpec> schedule) {
        return submitWorkers(p, 0, n, minSleep, maxSleep, schedule);
    }

    /** As above, numbering the jobs from {@code first}: a scenario that adds load later keeps names unique. */
    List<JobView> submitWorkers(
            Punctual p, int first, int n, double minSleep, double maxSleep, Supplier<ScheduleSpec> schedule) {
        List<JobView> out = new CopyOnWriteArrayList<>();
        List<RuntimeException> errors = new CopyOnWriteArrayList<>();
        inParallel(n, 4, k -> {
            int i = first + k;
            boolean fails = i % 10 == 9;
            double sleep = minSleep + (maxSleep - minSleep) * ((i * 37) % 100) / 100.0;
            try {
                out.add(submit(
                        p,
                        WORKER,
                        name + "-" + i,
                        env(sleep, fails ? 1 : 0),
                        schedule.get(),
                        60,
                        fails ? 2 : 3,
                        fails ? RunState.DEAD : RunState.SUCCEEDED,
                        fails ? 2 : 1));
            } catch (RuntimeException e) {
                errors.add(e);
            }
        });
        if (!errors.isEmpty()) {
            throw errors.get(0);
        }
        return out;
    }

    /**
     * {@link #submitWorkers} of {@code n} jobs scheduled now through the API, on a thread of its own: the scenario
     * injects its fault while they arrive, and joins the thread before the drain.
     */
    Thread submitWorkersMeanwhile(int n, double minSleep, double maxSleep) {
        return submitWorkersMeanwhile(0, n, minSleep, maxSleep);
    }

    Thread submitWorkersMeanwhile(int first, int n, double minSleep, double maxSleep) {
        return Thread.ofPlatform().start(() -> submitWorkers(api, first, n, minSleep, maxSleep, Stage::now));
    }

    /**
     * Like {@link #submitWorkers} with exit 0 and no sleep spread, but a failed submission is collected (with the
     * name it used) instead of thrown: for scenarios where the API itself is under fault.
     */
    Map<String, RuntimeException> submitTolerant(Punctual p, int n, double sleep, int threads, int first) {
        Map<String, RuntimeException> failures = new ConcurrentHashMap<>();
        inParallel(n, threads, i -> {
            String jobName = name + "-" + (first + i);
            try {
                submit(p, WORKER, jobName, env(sleep, 0), now(), 60, 3, RunState.SUCCEEDED, 1);
            } catch (RuntimeException e) {
                failures.put(jobName, e);
            }
        });
        return failures;
    }

    /** Calls {@code each} with 0 to {@code n - 1}, each index once, on {@code threads} threads; returns when done. */
    private static void inParallel(int n, int threads, IntConsumer each) {
        AtomicInteger next = new AtomicInteger();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            ts.add(Thread.ofPlatform().start(() -> {
                int i;
                while ((i = next.getAndIncrement()) < n) {
                    each.accept(i);
                }
            }));
        }
        for (Thread t : ts) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static int occurrences(Punctual p, ScheduleSpec spec, Instant createdAt) {
        if (!"interval".equals(spec.type())) {
            return 1;
        }
        Schedule s = p.schedules.parse(spec, createdAt, "schedule");
        int n = 0;
        for (var t = s.first(createdAt); t.isPresent(); t = s.next(t.get())) {
            n++;
        }
        return n;
    }

    // ---- executors and sweepers --------------------------------------------------------------------------------

    Exec startExecutor(Map<String, String> inject) {
        String id = "ex" + execCounter.incrementAndGet();
        Exec e = Exec.start(this, id, inject);
        executors.add(e);
        return e;
    }

    List<Exec> startExecutors(int n) {
        return startExecutors(n, Map.of());
    }

    /** {@code n} executors with the same injected faults, started together and ready. */
    List<Exec> startExecutors(int n, Map<String, String> inject) {
        List<Exec> started = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            started.add(startExecutor(inject));
        }
        started.forEach(Exec::awaitReady);
        return started;
    }

    /** Most scenarios' cast: the API's sweeper, then {@code n} healthy executors, ready. */
    List<Exec> startSweeperAndExecutors(int n) {
        startSweeper(api, "sweeper");
        return startExecutors(n);
    }

    /**
     * The cast of {@link #startSweeperAndExecutors} with three executors, and {@code n} workers arriving meanwhile
     * ({@link #submitWorkersMeanwhile}): the load most faults are injected into.
     */
    Thread startUnderLoad(int n, double minSleep, double maxSleep) {
        startSweeperAndExecutors(3);
        return submitWorkersMeanwhile(n, minSleep, maxSleep);
    }

    Sweeping startSweeper(Punctual p, String id) {
        Sweeping s = new Sweeping(p, id, Duration.ofMillis(300));
        sweepers.add(s);
        return s;
    }

    List<Exec> live() {
        return executors.stream().filter(Exec::alive).toList();
    }

    // ---- observation -------------------------------------------------------------------------------------------

    List<Run> allRuns() {
        List<Run> out = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        do {
            Map<String, AttributeValue> from = start;
            var r = dynamo.scan(b -> b.tableName(settings.deployment().prefix() + "-runs")
                    .consistentRead(true)
                    .exclusiveStartKey(from));
            r.items().forEach(i -> out.add(RunItems.fromItem(i)));
            start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
        } while (start != null);
        return out;
    }

    /** Job items only: the table also holds tenants' usage and jobs' secrets items, which have no owner. */
    List<Map<String, AttributeValue>> allJobs() {
        return dynamo
                .scan(b -> b.tableName(settings.deployment().prefix() + "-jobs").consistentRead(true))
                .items()
                .stream()
                .filter(item -> item.containsKey("owner"))
                .toList();
    }

    /** Runs an executor holds right now (RUNNING under its lease). */
    List<Run> heldBy(String executorId) {
        return allRuns().stream()
                .filter(r -> r.state() == RunState.RUNNING && executorId.equals(r.leaseOwner()))
                .toList();
    }

    /** Every accepted run has reached a terminal state and no witnessed binary is still alive. */
    boolean drained() {
        Map<String, Integer> terminal = new HashMap<>();
        for (Run r : allRuns()) {
            if (r.state().terminal()) {
                terminal.merge(r.jobId(), 1, Integer::sum);
            }
        }
        for (Expect e : expected.values()) {
            if (terminal.getOrDefault(e.jobId(), 0) < e.occurrences()) {
                return false;
            }
        }
        return witness.openAlive() == 0;
    }

    void awaitStarts(long n, Duration atMost) {
        await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(() -> witness.starts() >= n);
    }

    // ---- heal, drain, check ------------------------------------------------------------------------------------

    /**
     * Waits (up to {@code atMost}) until every accepted run is finished, then stops the sweepers and executors and
     * checks. The wait is not an assertion: what has not finished by then is counted as lost.
     */
    Checker.Result drainAndCheck(Duration atMost) {
        boolean done;
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(250)).until(this::drained);
            done = true;
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            done = false;
        }
        if (!done) {
            notes.add("not drained within " + atMost.toSeconds() + " s");
        }
        stopAll();
        return check();
    }

    Checker.Result check() {
        Checker.Result r = Checker.check(this);
        LAST.set(r);
        return r;
    }

    void stopAll() {
        sweepers.forEach(Sweeping::close);
        executors.forEach(e -> {
            if (e.alive()) {
                e.cont();
                e.term();
            }
        });
        executors.forEach(e -> e.awaitExit(Duration.ofSeconds(15)));
        executors.forEach(Exec::kill9);
    }

    double seconds() {
        return (System.nanoTime() - startedNs) / 1e9;
    }

    @Override
    public void close() throws Exception {
        stopAll();
        witness.close();
        dynamo.close();
        sqs.close();
    }
}
