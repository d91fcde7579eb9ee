package dev.punctual.bench.compare.punctual;

import dev.punctual.bench.Machine;
import dev.punctual.bench.compare.Child;
import dev.punctual.bench.compare.Contender;
import dev.punctual.bench.compare.Pin;
import dev.punctual.bench.compare.Usage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Punctual as it is deployed, on one machine: the local runner ({@code --executors 0}: the emulators, the API and
 * the sweeper in one process) and {@code nodes} executors as processes of their own, each with {@code slotsPerNode}
 * slots and the sandbox on (as root). Runs are created through the HTTP API as one-shot jobs. Instrumented, every
 * process counts its AWS calls ({@code PUNCTUAL_METERING_FILE}), which is what {@link #usage} sums, and the executors
 * log each start's steps ({@link #notes}); both cost the processes some CPU (every DynamoDB call then asks for its
 * consumed capacity, and a log line is formatted and written a start), which a deployed system does not spend.
 */
public final class PunctualContender implements Contender {
    static final String LOCAL_JAR = "local/target/quarkus-app/quarkus-run.jar";
    /** Jobs per create request. */
    static final int CREATE_BATCH = 100;

    static final String EXECUTOR_JAR = "executor/target/quarkus-app/quarkus-run.jar";
    private static final String PREFIX = "bench";

    /** The helper the executor image has, as the build makes it. */
    static final String HELPER = "executor/target/punctual-sandbox";
    /** The executor's JVM options, as bin/run-executor and the image give them (a java launcher @argfile). */
    static final String EXECUTOR_OPTIONS = "executor/jvm.options";

    private final boolean helper;
    private final boolean instrumented;
    private final List<Child> children = new ArrayList<>();
    private final List<Path> meters = new ArrayList<>();
    private Setup setup;
    private Api api;
    private String binaryId;

    /**
     * {@code helper}: runs start through the sandbox's helper ({@value #HELPER}), one exec, as in the executor's
     * image; else through util-linux's tools, as where there is none. Either way a run's disk is watched (the work
     * directory is under /tmp, where runs cannot get a filesystem of their own). {@code instrumented}: calls metered
     * and starts timed (else neither, as deployed: no calls table, no start path).
     */
    public PunctualContender(boolean helper, boolean instrumented) {
        this.helper = helper;
        this.instrumented = instrumented;
    }

    @Override
    public String name() {
        return "Punctual (local runner + "
                + (setup == null ? "?" : setup.nodes() + " executors × " + setup.slotsPerNode()) + ", sandbox "
                + (root() ? "on" : "off: not root") + ", started through " + (helper ? "the helper" : "the tools")
                + (instrumented ? "" : ", uninstrumented") + ")";
    }

    @Override
    public void start(Setup s) throws Exception {
        this.setup = s;
        int apiPort = freePort();
        int dynamo = freePort();
        int sqs = freePort();
        int s3 = freePort();
        Map<String, String> localEnv = new HashMap<>(Map.of(
                // One tenant schedules the whole burst: lift the per-tenant quotas (10,000 jobs and starts a minute).
                "PUNCTUAL_QUOTA_JOBS", "10000000",
                "PUNCTUAL_QUOTA_RUNS_PER_MINUTE", "10000000"));
        if (instrumented) {
            Path localMeter = s.workDir().resolve("meter-local.txt");
            meters.add(localMeter);
            localEnv.put("PUNCTUAL_METERING_FILE", localMeter.toString());
        }
        Child local = Child.start(
                "punctual-local",
                Pin.STORE,
                java(
                        LOCAL_JAR,
                        "--executors",
                        "0",
                        "--port",
                        Integer.toString(apiPort),
                        "--dynamodb-port",
                        Integer.toString(dynamo),
                        "--sqs-port",
                        Integer.toString(sqs),
                        "--s3-port",
                        Integer.toString(s3),
                        "--prefix",
                        PREFIX),
                localEnv,
                s.workDir());
        children.add(local);
        local.awaitLine("Punctual local is ready", Duration.ofMinutes(3));
        for (int i = 1; i <= s.nodes(); i++) {
            Path work = Files.createDirectories(s.workDir().resolve("executor-" + i));
            Map<String, String> env = new HashMap<>();
            env.put("AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:" + dynamo);
            env.put("AWS_ENDPOINT_URL_SQS", "http://127.0.0.1:" + sqs);
            env.put("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:" + s3);
            env.put("AWS_REGION", "us-east-1");
            env.put("AWS_ACCESS_KEY_ID", "test");
            env.put("AWS_SECRET_ACCESS_KEY", "test");
            env.put("PUNCTUAL_S3_PATH_STYLE", "true");
            env.put("PUNCTUAL_PREFIX", PREFIX);
            env.put("PUNCTUAL_EXECUTOR_CONCURRENCY", Integer.toString(s.slotsPerNode()));
            env.put("PUNCTUAL_EXECUTOR_ID", "bench-executor-" + i);
            env.put("PUNCTUAL_WORK_DIR", work.toString());
            if (instrumented) {
                Path meter = s.workDir().resolve("meter-executor-" + i + ".txt");
                meters.add(meter);
                env.put("PUNCTUAL_METERING_FILE", meter.toString());
                // One line per start with the time of each step since the due instant (see notes()).
                env.put("QUARKUS_LOG_CATEGORY__DEV_PUNCTUAL_TIMING__LEVEL", "DEBUG");
            }
            if (root()) {
                // As bin/run-executor does: a run reaches nothing, not even the emulators.
                env.put("PUNCTUAL_SANDBOX_NETWORK", "none");
            }
            // Without it, the executor warns and starts runs through the tools.
            env.put(
                    "PUNCTUAL_SANDBOX_HELPER",
                    helper
                            ? Path.of(HELPER).toAbsolutePath().toString()
                            : s.workDir().resolve("no-helper").toString());
            Child executor = Child.start("punctual-executor-" + i, Pin.WORKERS, executorCommand(), env, s.workDir());
            children.add(executor);
        }
        for (Child c : children.subList(1, children.size())) {
            c.awaitLine("polling", Duration.ofMinutes(2));
        }
        api = new Api("http://127.0.0.1:" + apiPort);
        binaryId = api.uploadBinary("stamp", s.binary());
    }

    @Override
    public void schedule(List<Due> dues) throws Exception {
        // As a client with many jobs would: 100 a request (POST /v1/jobs/batch), two requests in flight.
        api.createOnce(binaryId, dues, setup.startsFile(), 2, CREATE_BATCH);
    }

    @Override
    public boolean schedulesPriority() {
        return true;
    }

    @Override
    public boolean schedulesRecurring() {
        return true;
    }

    @Override
    public void scheduleRecurring(List<Series> series) throws Exception {
        api.createRecurring(binaryId, series, setup.startsFile(), 2, CREATE_BATCH);
    }

    /** How far each executor's log had got when the measured scenario began. */
    private final Map<Path, Long> measuredFrom = new HashMap<>();

    @Override
    public void beginMeasuring() throws IOException {
        for (Child c : children.subList(1, children.size())) {
            measuredFrom.put(c.log(), Files.size(c.log()));
        }
    }

    /**
     * Where the start path's time went: for each step the executors logged ({@code dev.punctual.timing}), the median
     * time since the due instant at which it was done, over the measured scenario's starts.
     */
    @Override
    public List<String> notes() throws IOException {
        Map<String, List<Double>> byStep = new LinkedHashMap<>();
        int starts = 0;
        for (Map.Entry<Path, Long> e : measuredFrom.entrySet()) {
            byte[] all = Files.readAllBytes(e.getKey());
            String since = new String(
                    all,
                    (int) Math.min(all.length, e.getValue()),
                    (int) Math.max(0, all.length - e.getValue()),
                    StandardCharsets.UTF_8);
            for (String line : since.split("\n")) {
                int at = line.indexOf("(from its due instant): ");
                if (at < 0) {
                    continue;
                }
                starts++;
                for (String step : line.substring(at + 24).split(", ")) {
                    Matcher m = STEP.matcher(step.strip());
                    if (m.matches()) {
                        byStep.computeIfAbsent(m.group(1), k -> new ArrayList<>())
                                .add(Double.parseDouble(m.group(2)));
                    }
                }
            }
        }
        if (starts == 0) {
            return List.of();
        }
        List<String> medians = new ArrayList<>();
        byStep.forEach((step, ms) -> {
            List<Double> sorted = ms.stream().sorted().toList();
            medians.add(step + " " + String.format("%.1f", sorted.get(sorted.size() / 2)));
        });
        return List.of("start path, median ms from the due instant at which each step was done (" + starts
                + " starts, `dev.punctual.timing`): " + String.join(", ", medians));
    }

    private static final Pattern STEP = Pattern.compile("(.+) (-?[0-9.]+) ms");

    @Override
    public List<ProcessHandle> processes() {
        return children.stream().map(Child::handle).toList();
    }

    @Override
    public Optional<Usage> usage() {
        if (!instrumented) {
            return Optional.empty();
        }
        Usage total = new Usage(Map.of());
        for (Path m : meters) {
            total = total.plus(read(m));
        }
        return Optional.of(total);
    }

    @Override
    public void close() throws Exception {
        // Executors first, together (they drain), then the runner with the emulators they talk to.
        children.stream().skip(1).forEach(Child::terminate);
        for (int i = children.size() - 1; i >= 0; i--) {
            children.get(i).close();
        }
        children.clear();
    }

    private static Usage read(Path meter) {
        Map<String, Double> m = new HashMap<>();
        try {
            if (Files.exists(meter)) {
                for (String line : Files.readAllLines(meter)) {
                    int sp = line.lastIndexOf(' ');
                    if (sp > 0) {
                        m.put(line.substring(0, sp), Double.parseDouble(line.substring(sp + 1)));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Usage(m);
    }

    /** The executor as deployed: its JVM options ({@value #EXECUTOR_OPTIONS}), then its jar. */
    static List<String> executorCommand() {
        List<String> cmd = java(EXECUTOR_JAR);
        cmd.add(1, "@" + Path.of(EXECUTOR_OPTIONS).toAbsolutePath());
        return cmd;
    }

    private static List<String> java(String jar, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Child.java());
        if (Runtime.version().feature() >= 24) {
            // DynamoDB Local's and Netty's sun.misc.Unsafe calls would otherwise warn on every start.
            cmd.add("--sun-misc-unsafe-memory-access=allow");
        }
        cmd.add("-jar");
        cmd.add(jar);
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static boolean root() {
        return Machine.effectiveUid() == 0;
    }
}
