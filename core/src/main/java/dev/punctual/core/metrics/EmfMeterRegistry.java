package dev.punctual.core.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.cumulative.CumulativeTimer;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Micrometer's meters as CloudWatch Embedded Metric Format lines: each {@link #publish} writes one JSON document per
 * tag set to {@code out} (stdout: the ECS awslogs driver and Lambda's own log capture send it to CloudWatch Logs,
 * which turns it into metrics). No API call and no IAM permission, unlike a PutMetricData registry; and a Lambda
 * publishes within its invocation, not on a timer it may be frozen before.
 *
 * <p>Counters go out as what they counted since the last publish; gauges as their value; timers as the values
 * themselves, in milliseconds (at most {@link #MAX_VALUES} per publish), so that CloudWatch computes true percentiles
 * (p99 of start lateness) rather than a percentile of percentiles. Namespace {@link #NAMESPACE}; every metric has the
 * dimension {@link #DIMENSION} (the deployment's prefix) and its tags as further dimensions; a meter tagged
 * {@link Meters#LANE} goes out under a second set of dimensions without it too, so that the lanes add up to one metric.
 */
public final class EmfMeterRegistry extends SimpleMeterRegistry {
    public static final String NAMESPACE = "Punctual";
    public static final String DIMENSION = "Prefix";
    /** The most values EMF takes in one metric's array. */
    static final int VALUES_PER_DOCUMENT = 100;
    /** The most timer values kept between two publishes; more are dropped (the count still goes out). */
    static final int MAX_VALUES = 10_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String prefix;
    private final Consumer<String> out;
    private final Map<Meter.Id, Double> published = new HashMap<>();

    public EmfMeterRegistry(String prefix, Consumer<String> out, Clock clock) {
        super(SimpleConfig.DEFAULT, clock);
        this.prefix = prefix;
        this.out = out;
    }

    @Override
    protected Timer newTimer(Meter.Id id, DistributionStatisticConfig config, PauseDetector pauseDetector) {
        return new ValuesTimer(id, clock, config, pauseDetector);
    }

    /** Writes what the meters recorded since the last publish. */
    public synchronized void publish() {
        long now = clock.wallTime();
        Map<List<Tag>, Map<String, Object[]>> byTags = new LinkedHashMap<>();
        List<String> extra = new ArrayList<>();
        for (Meter meter : getMeters()) {
            Meter.Id id = meter.getId();
            Map<String, Object[]> metrics = byTags.computeIfAbsent(id.getTags(), t -> new LinkedHashMap<>());
            if (meter instanceof Counter c) {
                metrics.put(id.getName(), new Object[] {since(id, c.count()), "Count"});
            } else if (meter instanceof FunctionCounter c) {
                metrics.put(id.getName(), new Object[] {since(id, c.count()), "Count"});
            } else if (meter instanceof Gauge g && Double.isFinite(g.value())) {
                metrics.put(id.getName(), new Object[] {g.value(), "None"});
            } else if (meter instanceof ValuesTimer t) {
                List<Double> values = t.drain();
                for (int from = 0; from < values.size(); from += VALUES_PER_DOCUMENT) {
                    List<Double> chunk = values.subList(from, Math.min(values.size(), from + VALUES_PER_DOCUMENT));
                    Object[] metric = {chunk, "Milliseconds"};
                    if (from == 0) {
                        metrics.put(id.getName(), metric);
                    } else {
                        // EMF names a metric once per document: the rest of the values go in documents of their own.
                        extra.add(document(now, id.getTags(), Map.of(id.getName(), metric)));
                    }
                }
            }
        }
        byTags.forEach((tags, metrics) -> {
            if (!metrics.isEmpty()) {
                out.accept(document(now, tags, metrics));
            }
        });
        extra.forEach(out);
    }

    /** How much a cumulative count grew since the last publish. */
    private double since(Meter.Id id, double count) {
        Double before = published.put(id, count);
        return count - (before == null ? 0 : before);
    }

    private String document(long at, List<Tag> tags, Map<String, Object[]> metrics) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode aws = root.putObject("_aws");
        aws.put("Timestamp", at);
        ObjectNode directive = aws.putArray("CloudWatchMetrics").addObject();
        directive.put("Namespace", NAMESPACE);
        ArrayNode sets = directive.putArray("Dimensions");
        ArrayNode dimensions = sets.addArray().add(DIMENSION);
        root.put(DIMENSION, prefix);
        for (Tag t : tags) {
            dimensions.add(t.getKey());
            root.put(t.getKey(), t.getValue());
        }
        if (tags.stream().anyMatch(t -> t.getKey().equals(Meters.LANE))) {
            // Also without the lane: what the metric was before lanes, every lane's values together (the p99 of
            // every start, which the lateness alarm reads).
            ArrayNode all = sets.addArray().add(DIMENSION);
            tags.stream().map(Tag::getKey).filter(k -> !k.equals(Meters.LANE)).forEach(all::add);
        }
        ArrayNode definitions = directive.putArray("Metrics");
        metrics.forEach((name, m) -> {
            definitions.addObject().put("Name", name).put("Unit", (String) m[1]);
            if (m[0] instanceof List<?> values) {
                ArrayNode a = root.putArray(name);
                values.forEach(v -> a.add((Double) v));
            } else {
                root.put(name, (Double) m[0]);
            }
        });
        return root.toString();
    }

    /** A timer that also keeps its values (ms) until the next publish. */
    private static final class ValuesTimer extends CumulativeTimer {
        private final BlockingQueue<Double> values = new ArrayBlockingQueue<>(MAX_VALUES);

        ValuesTimer(Meter.Id id, Clock clock, DistributionStatisticConfig config, PauseDetector pauseDetector) {
            super(id, clock, config, pauseDetector, TimeUnit.MILLISECONDS, false);
        }

        @Override
        protected void recordNonNegative(long amount, TimeUnit unit) {
            super.recordNonNegative(amount, unit);
            values.offer(unit.toNanos(amount) / 1e6);
        }

        List<Double> drain() {
            List<Double> out = new ArrayList<>();
            values.drainTo(out);
            return out;
        }
    }
}
