package dev.punctual.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every meter Punctual records, named here and nowhere else: the Terraform alarms and dashboard name the same
 * metrics, and {@code infra-tests} checks them against these constants. The registry is handed in: Prometheus in the
 * local runner, {@link EmfMeterRegistry} on AWS, an in-memory one in tests and where nothing reads them.
 */
public final class Meters {
    /** Counter: run transitions an executor made, tagged {@link #STATE} (STARTED, SUCCEEDED, FAILED, DEAD, …). */
    public static final String RUNS = "punctual.runs";
    /**
     * Timer: how late a run's first attempt was let start after its due time (0 when on time), tagged {@link #LANE}.
     * A retry starts after its backoff by design, so only first attempts say whether runs start on time.
     */
    public static final String START_LATENESS = "punctual.start.lateness";
    /** Counter: claims that lost their conditional write (another executor's lease, a finished run, a job changed). */
    public static final String CLAIM_CONFLICTS = "punctual.claim.conflicts";
    /** Counter: failed attempts that will be tried again. */
    public static final String RETRIES = "punctual.retries";
    /** Counter: runs the sweeper made DEAD because SQS dead-lettered their message. */
    public static final String DEAD_LETTERS = "punctual.dead.letters";
    /**
     * Gauge: a lane's run queue's messages, tagged {@link #LANE} (high, normal, low) and {@link #STATE} (visible,
     * delayed, in_flight), sampled once a sweep.
     */
    public static final String QUEUE_MESSAGES = "punctual.queue.messages";
    /** Gauge: run slots taken (a claimed run, from its claim to its outcome). */
    public static final String SLOTS_BUSY = "punctual.executor.slots.busy";
    /** Gauge: run slots there are. */
    public static final String SLOTS = "punctual.executor.slots";

    public static final String STATE = "state";
    public static final String LANE = "lane";
    public static final List<String> QUEUE_STATES = List.of("visible", "delayed", "in_flight");

    private final MeterRegistry registry;
    /** Start lateness by lane, registered at a lane's first start. */
    private final Map<String, Timer> lateness = new ConcurrentHashMap<>();

    private final AtomicInteger busy = new AtomicInteger();
    private final AtomicInteger slots = new AtomicInteger();
    /** Each lane's queue depth by state, registered at its first sample (an executor never samples: no queue). */
    private final Map<String, AtomicLong> queue = new ConcurrentHashMap<>();

    private volatile boolean slotsRegistered;

    public Meters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The lateness timer of a lane: tagged {@link #LANE}. */
    private Timer lateness(String lane) {
        return lateness.computeIfAbsent(
                lane,
                l -> Timer.builder(START_LATENESS)
                        .description("how late a binary was let start after its due time")
                        // A percentile histogram for Prometheus (histogram_quantile); EmfMeterRegistry sends the
                        // values.
                        .publishPercentileHistogram()
                        .minimumExpectedValue(Duration.ofMillis(1))
                        .maximumExpectedValue(Duration.ofMinutes(10))
                        .tag(LANE, l)
                        .register(registry));
    }

    /** Meters kept in memory only: for tests and for deployables whose meters nobody reads. */
    public static Meters inMemory() {
        return new Meters(new SimpleMeterRegistry());
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** A run transition an executor made in the normal lane (see {@link #transition(String, Integer, Long, String)}). */
    public void transition(String state, Integer attempt, Long latenessMs) {
        transition(state, attempt, latenessMs, null);
    }

    /**
     * A run transition an executor made; {@code latenessMs}: the start's, for STARTED (null otherwise), in
     * {@code lane} (null: normal).
     */
    public void transition(String state, Integer attempt, Long latenessMs, String lane) {
        Counter.builder(RUNS)
                .description("run transitions made by executors")
                .tag(STATE, state)
                .register(registry)
                .increment();
        if (latenessMs != null && attempt != null && attempt == 1) {
            lateness(lane == null ? "normal" : lane).record(Duration.ofMillis(Math.max(0, latenessMs)));
        }
    }

    public void retry() {
        Counter.builder(RETRIES)
                .description("failed attempts to be tried again")
                .register(registry)
                .increment();
    }

    public void claimLost() {
        Counter.builder(CLAIM_CONFLICTS)
                .description("claims that lost their conditional write")
                .register(registry)
                .increment();
    }

    public void deadLettered(int runs) {
        Counter.builder(DEAD_LETTERS)
                .description("runs made DEAD because their message was dead-lettered")
                .register(registry)
                .increment(runs);
    }

    /** A lane's run queue's depth as SQS last told it (approximate, as SQS says). */
    public void queueDepth(String lane, long visible, long delayed, long inFlight) {
        long[] counts = {visible, delayed, inFlight};
        for (int i = 0; i < QUEUE_STATES.size(); i++) {
            String state = QUEUE_STATES.get(i);
            queue.computeIfAbsent(lane + "/" + state, k -> {
                        AtomicLong value = new AtomicLong();
                        Gauge.builder(QUEUE_MESSAGES, value, AtomicLong::get)
                                .description("run queue messages (SQS's approximate counts)")
                                .tag(LANE, lane)
                                .tag(STATE, state)
                                .register(registry);
                        return value;
                    })
                    .set(counts[i]);
        }
    }

    /** An executor pool with {@code n} slots starts (negative: stops); every pool of the process adds up. */
    public void slotsAdded(int n) {
        if (!slotsRegistered) {
            synchronized (this) {
                Gauge.builder(SLOTS_BUSY, busy, AtomicInteger::get)
                        .description("run slots taken")
                        .register(registry);
                Gauge.builder(SLOTS, slots, AtomicInteger::get)
                        .description("run slots")
                        .register(registry);
                slotsRegistered = true;
            }
        }
        slots.addAndGet(n);
    }

    public void slotTaken() {
        busy.incrementAndGet();
    }

    public void slotFreed() {
        busy.decrementAndGet();
    }

    /**
     * Publishes what a push registry holds now ({@link EmfMeterRegistry}); nothing for the others (Prometheus is
     * scraped). A Lambda calls it before its invocation ends: its process may be frozen right after.
     */
    public void flush() {
        if (registry instanceof EmfMeterRegistry emf) {
            emf.publish();
        }
    }
}
