package dev.punctual.bench.dispatch;

import dev.punctual.core.Punctual;
import dev.punctual.core.config.Settings;
import dev.punctual.core.infra.AwsClients;
import dev.punctual.core.infra.Metering;
import dev.punctual.core.infra.Provisioner;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.schedule.ScheduleSpec;
import dev.punctual.core.service.BinaryRequest;
import dev.punctual.core.service.BinaryView;
import dev.punctual.core.service.JobBatch;
import dev.punctual.core.service.JobRequest;
import dev.punctual.core.sweep.Sweeper;
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
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * One dispatch benchmark: the embedded emulators in this process, the scheduler's core on them with every AWS call
 * waiting a modelled latency, {@code jobs} recurring jobs whose occurrences fall due in the same minutes (one a
 * minute each, spread over the minute's seconds), and the sweeper alone (no executors) sweeping as on AWS: once a
 * minute, each sweep the first to see a whole minute of occurrences (lookahead 2 min), 60 s before it begins.
 *
 * <p>Time is the system clock moved ahead ({@link ShiftedClock}): each sweep starts at its minute's logical instant
 * (or at once, late, when the sweep before it overran), and its calls take real time. What it measures per sweep:
 * how long the sweep took, how many runs it sent and at what rate, how many of those were in SQS before their due
 * instant (by the send's return, on the scenario's clock), and what it asked of AWS per run sent.
 */
final class DispatchScenario implements AutoCloseable {
    /** The tenants the jobs are spread over: quotas are per tenant (10,000 jobs, 10,000 runs a minute). */
    static final int TENANTS = 20;

    record Options(
            int jobs,
            String kind,
            int minutes,
            Duration latency,
            Duration transactionLatency,
            int shards,
            int concurrency,
            int workers,
            Duration deadline) {}

    /**
     * What the sweeper Lambda keeps of its time after its last send ({@code SweepHandler}'s wait for its notices
     * and margin): a sweep held to a 60 s timeout stops sending 15 s before it.
     */
    static final Duration AFTER_SENDING = Duration.ofSeconds(15);

    /** One sweep's figures; {@code calls} and units are per run sent. */
    record Sweep(
            Instant dueMinute,
            double seconds,
            int sent,
            int inTime,
            Duration worstLate,
            Map<String, Double> callsPerRun,
            double writeUnitsPerRun,
            double readUnitsPerRun,
            List<Sweeper.SweepReport> reports,
            double sweeperCpuMsPerRun,
            String load) {
        int deferred() {
            return reports.stream().mapToInt(Sweeper.SweepReport::deferred).sum();
        }
    }

    private final Options options;
    private final EmbeddedAws aws;
    private final ShiftedClock clock = new ShiftedClock();
    private final ModelledLatency latency;
    private final SendLog sends = new SendLog(clock);
    private final Punctual punctual;

    DispatchScenario(Options options) throws Exception {
        this.options = options;
        this.latency = new ModelledLatency(options.latency(), options.transactionLatency());
        this.aws = EmbeddedAws.startInMemory();
        Metering.enable();
        AwsClients.Target t = AwsClients.Target.emulators(aws.dynamodbEndpoint(), aws.sqsEndpoint(), aws.s3Endpoint());
        Settings settings = Settings.builder()
                .prefix("bench")
                .bucket("bench-artifacts")
                .shards(options.shards())
                .dispatchConcurrency(options.concurrency())
                .build();
        Provisioner.provision(t, new Resources(settings));
        DynamoDbClient dynamo = DynamoDbClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> interceptors(c::addExecutionInterceptor, latency))
                .region(t.region())
                .credentialsProvider(t.credentials())
                .endpointOverride(t.dynamodb())
                .build();
        SqsClient sqs = SqsClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> interceptors(c::addExecutionInterceptor, latency, sends))
                .region(t.region())
                .credentialsProvider(t.credentials())
                .endpointOverride(t.sqs())
                .build();
        S3Client s3 = AwsClients.s3(t);
        this.punctual = new Punctual(dynamo, sqs, s3, AwsClients.presigner(t), settings, clock);
    }

    private static void interceptors(
            java.util.function.Consumer<ExecutionInterceptor> add, ExecutionInterceptor... extra) {
        add.accept(Metering.create());
        for (ExecutionInterceptor i : extra) {
            add.accept(i);
        }
    }

    /**
     * Creates the jobs (latency off: setting up is not measured), their first occurrences in the minute after next
     * but two (beyond the API's send-at-create window), then sweeps {@code minutes} minutes of them.
     */
    List<Sweep> run() throws Exception {
        Instant first = clock.instant().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(4));
        createJobs(first);
        System.err.printf(
                Locale.ROOT, "%d jobs created; their first occurrences are due in %s%n", options.jobs(), first);
        latency.on(true);
        List<Sweep> out = new ArrayList<>();
        for (int m = 0; m < options.minutes(); m++) {
            Instant due = first.plus(Duration.ofMinutes(m));
            // The sweep that is the first to see the whole minute: its horizon (now + 2 min) reaches its end.
            clock.advanceTo(due.minus(Duration.ofMinutes(1)));
            sends.drain();
            Map<String, Double> before = Metering.snapshot();
            long t0 = System.nanoTime();
            long cpu0 = SweeperCpu.nanos();
            List<Sweeper.SweepReport> reports = sweepWorkers();
            long cpu = SweeperCpu.nanos() - cpu0;
            double seconds = (System.nanoTime() - t0) / 1e9;
            Map<String, Double> after = Metering.snapshot();
            List<SendLog.Sent> sent = sends.drain();
            int inTime = 0;
            Duration worst = Duration.ZERO;
            for (SendLog.Sent s : sent) {
                if (s.at().isBefore(s.due())) {
                    inTime++;
                } else if (Duration.between(s.due(), s.at()).compareTo(worst) > 0) {
                    worst = Duration.between(s.due(), s.at());
                }
            }
            out.add(sweep(due, seconds, sent.size(), inTime, worst, before, after, reports, cpu));
            System.err.printf(
                    Locale.ROOT, "sweep for %s: %.1f s, %d sent, %d in time%n", due, seconds, sent.size(), inTime);
        }
        latency.on(false);
        return out;
    }

    private Sweep sweep(
            Instant due,
            double seconds,
            int sent,
            int inTime,
            Duration worst,
            Map<String, Double> before,
            Map<String, Double> after,
            List<Sweeper.SweepReport> reports,
            long cpuNanos) {
        Map<String, Double> calls = new TreeMap<>();
        double wcu = 0;
        double rcu = 0;
        int runs = Math.max(1, sent);
        for (Map.Entry<String, Double> e : after.entrySet()) {
            double d = e.getValue() - before.getOrDefault(e.getKey(), 0.0);
            if (d == 0) {
                continue;
            }
            String k = e.getKey();
            if (k.startsWith("calls:")) {
                calls.put(k.substring("calls:".length()), d / runs);
            } else if (k.startsWith("wcu:") && k.chars().filter(c -> c == ':').count() == 1) {
                wcu += d;
            } else if (k.startsWith("rcu:") && k.chars().filter(c -> c == ':').count() == 1) {
                rcu += d;
            }
        }
        return new Sweep(
                due,
                seconds,
                sent,
                inTime,
                worst,
                calls,
                wcu / runs,
                rcu / runs,
                reports,
                cpuNanos / 1e6 / runs,
                load());
    }

    /**
     * One minute's sweep: each worker on a thread of its own, as each is a Lambda invocation of its own on AWS (here
     * they share this process's clients and its two cores), each held to the deadline its Lambda would give it.
     */
    private List<Sweeper.SweepReport> sweepWorkers() throws Exception {
        Instant deadline = clock.instant().plus(options.deadline()).minus(AFTER_SENDING);
        List<java.util.concurrent.Future<Sweeper.SweepReport>> running = new ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(
                options.workers(),
                Thread.ofPlatform().name(SweeperCpu.WORKER_PREFIX, 0).factory())) {
            for (int w = 0; w < options.workers(); w++) {
                Sweeper.Worker worker = new Sweeper.Worker(w, options.workers());
                running.add(pool.submit(() -> punctual.sweeper.sweep(deadline, worker)));
            }
            List<Sweeper.SweepReport> out = new ArrayList<>();
            for (var f : running) {
                out.add(f.get());
            }
            return out;
        }
    }

    /** The 1-minute load average, as /proc/loadavg gives it. */
    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private void createJobs(Instant first) throws Exception {
        List<String> binaries = new ArrayList<>();
        for (int t = 0; t < TENANTS; t++) {
            binaries.add(upload(tenant(t)));
        }
        List<List<JobRequest>> perTenant = new ArrayList<>();
        for (int t = 0; t < TENANTS; t++) {
            perTenant.add(new ArrayList<>());
        }
        for (int i = 0; i < options.jobs(); i++) {
            int t = i % TENANTS;
            // Spread over the minute's seconds, as many due each second.
            Instant at = first.plusSeconds(i % 60);
            perTenant
                    .get(t)
                    .add(JobRequest.builder("dispatch-" + i, binaries.get(t), schedule(i, at))
                            .build());
        }
        for (int t = 0; t < TENANTS; t++) {
            List<JobRequest> all = perTenant.get(t);
            for (int from = 0; from < all.size(); from += JobBatch.MAX_JOBS) {
                punctual.jobService.createAll(
                        tenant(t),
                        new JobBatch.Request(all.subList(from, Math.min(all.size(), from + JobBatch.MAX_JOBS))));
            }
        }
    }

    /** Every minute from {@code at}: an interval, or a cron at {@code at}'s second (half each when mixed). */
    private ScheduleSpec schedule(int i, Instant at) {
        boolean cron = switch (options.kind()) {
            case "interval" -> false;
            case "cron" -> true;
            default -> i % 2 == 1;
        };
        if (cron) {
            int second = at.atZone(java.time.ZoneOffset.UTC).getSecond();
            return ScheduleSpec.cron(second + " * * * * *", "UTC", at.toString(), null, null);
        }
        return ScheduleSpec.interval("PT1M", at.toString(), null);
    }

    private static String tenant(int t) {
        return String.format(Locale.ROOT, "tenant-%02d", t);
    }

    private String upload(String owner) throws Exception {
        byte[] bytes = "#!/bin/sh\nexit 0\n".getBytes(StandardCharsets.UTF_8);
        BinaryView v =
                punctual.binaries.register(owner, new BinaryRequest("noop.sh", sha256(bytes), (long) bytes.length));
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(v.uploadUrl())).PUT(HttpRequest.BodyPublishers.ofByteArray(bytes));
        v.uploadHeaders().forEach((name, value) -> {
            if (!Set.of("content-length", "host").contains(name.toLowerCase(Locale.ROOT))) {
                b.header(name, value);
            }
        });
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("upload of " + owner + "'s binary: " + r.statusCode() + " " + r.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return v.id();
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws Exception {
        aws.close();
    }
}
