package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.metrics.EmfMeterRegistry;
import dev.punctual.core.metrics.Meters;
import io.micrometer.core.instrument.Clock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Punctual metrics the alarms and the dashboard name against those the code publishes. CloudWatch keeps a metric
 * per set of dimensions, and a query must name every one: an alarm or a graph that leaves out a dimension the code
 * emits (the queue's {@code lane}, say) watches a metric nobody publishes, and shows nothing. Each check returns the
 * drift it finds.
 */
final class MetricsContract {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A dashboard metric written {@code ["Punctual", "<meter>", "<dimension>", <value>, …}. */
    private static final Pattern DASHBOARD_METRIC = Pattern.compile(
            "\\[\\s*\"" + EmfMeterRegistry.NAMESPACE + "\",\\s*\"(punctual\\.[a-z_.]+)\"((?:\\s*,\\s*[^,{\\]\\s]+)*)");

    private final Terraform tf;

    MetricsContract(Terraform tf) {
        this.tf = tf;
    }

    /**
     * Each meter's sets of dimensions as the code publishes them (a meter tagged with a lane goes out under two: with
     * the lane and without): every meter of {@link Meters} recorded once, on AWS's registry, and read back from the
     * Embedded Metric Format documents it writes.
     */
    static Map<String, Set<Set<String>>> published() throws IOException {
        List<String> documents = new ArrayList<>();
        EmfMeterRegistry registry = new EmfMeterRegistry("p", documents::add, Clock.SYSTEM);
        Meters meters = new Meters(registry);
        meters.transition("STARTED", 1, 5L, Priority.HIGH.label());
        meters.retry();
        meters.claimLost();
        meters.deadLettered(1);
        meters.queueDepth(Priority.NORMAL.label(), 1, 2, 3);
        meters.slotsAdded(1);
        meters.slotTaken();
        registry.publish();
        Map<String, Set<Set<String>>> out = new TreeMap<>();
        for (String document : documents) {
            JsonNode directive = JSON.readTree(document)
                    .path("_aws")
                    .path("CloudWatchMetrics")
                    .path(0);
            Set<Set<String>> sets = new java.util.HashSet<>();
            directive.path("Dimensions").forEach(set -> {
                Set<String> dimensions = new TreeSet<>();
                set.forEach(d -> dimensions.add(d.asText()));
                sets.add(dimensions);
            });
            directive
                    .path("Metrics")
                    .forEach(m -> out.computeIfAbsent(m.path("Name").asText(), k -> new java.util.HashSet<>())
                            .addAll(sets));
        }
        return out;
    }

    /**
     * Every Punctual metric an alarm (its own metric or one of its metric queries) or the dashboard names is named
     * with exactly the dimensions the code publishes it with.
     */
    List<String> dimensions() throws IOException {
        Map<String, Set<Set<String>>> published = published();
        List<String> drift = new ArrayList<>();
        for (Terraform.Instance alarm : tf.instances("aws_cloudwatch_metric_alarm")) {
            walk(alarm.block(), node -> {
                if (node.path("namespace").asText().equals(EmfMeterRegistry.NAMESPACE) && node.has("metric_name")) {
                    Set<String> named = new TreeSet<>();
                    node.path("dimensions").fieldNames().forEachRemaining(named::add);
                    compare(drift, alarm.address(), node.path("metric_name").asText(), named, published);
                }
            });
        }
        Matcher m = DASHBOARD_METRIC.matcher(Files.readString(tf.dir().resolve("dashboard.tf")));
        while (m.find()) {
            List<String> rest = Arrays.stream(m.group(2).split(","))
                    .map(String::strip)
                    .filter(s -> !s.isEmpty())
                    .toList();
            Set<String> named = new TreeSet<>();
            for (int i = 0; i < rest.size(); i += 2) {
                named.add(rest.get(i).replace("\"", ""));
            }
            compare(drift, "dashboard.tf", m.group(1), named, published);
        }
        return drift;
    }

    private static void compare(
            List<String> drift,
            String where,
            String metric,
            Set<String> named,
            Map<String, Set<Set<String>>> published) {
        Set<Set<String>> expected = published.get(metric);
        if (expected == null) {
            drift.add(where + " names " + metric + ", which the code does not publish");
        } else if (!expected.contains(named)) {
            drift.add(where + " names " + metric + " with the dimensions " + named + "; the code publishes it with "
                    + expected);
        }
    }

    private static void walk(JsonNode node, java.util.function.Consumer<JsonNode> visit) {
        if (node.isObject()) {
            visit.accept(node);
        }
        node.forEach(child -> walk(child, visit));
    }

    /**
     * The dashboard's queue widgets, as Terraform evaluates them ({@code local.queue_widgets}, offline): a line for
     * every lane of the code in every state the code samples ({@link Meters#QUEUE_STATES}), named with its lane.
     */
    List<String> queueWidgets(Path dir) throws IOException, InterruptedException {
        OfflinePlan plan = new OfflinePlan(tf, dir);
        if (!plan.isEvaluableLocal("queue_widgets")) {
            return List.of("local.queue_widgets is not there, or depends on more than variables and locals");
        }
        OfflinePlan.Result r = plan.output("widgets", "${local.queue_widgets}")
                .plan(Map.of("auth", "iam", "create_executor_service", false));
        if (!r.ok()) {
            return List.of("the offline plan of local.queue_widgets failed:\n" + r.errors());
        }
        Set<String> graphed = new TreeSet<>();
        for (JsonNode widget : r.outputs().get("widgets")) {
            for (JsonNode metric : widget.path("metrics")) {
                if (!metric.path(1).asText().equals(Meters.QUEUE_MESSAGES)) {
                    continue;
                }
                Map<String, String> dimensions = new TreeMap<>();
                for (int i = 2; i + 1 < metric.size() && metric.get(i).isTextual(); i += 2) {
                    dimensions.put(metric.get(i).asText(), metric.get(i + 1).asText());
                }
                graphed.add(dimensions.get(Meters.LANE) + " " + dimensions.get(Meters.STATE));
            }
        }
        Set<String> expected = new TreeSet<>();
        for (Priority lane : Priority.values()) {
            Meters.QUEUE_STATES.forEach(state -> expected.add(lane.label() + " " + state));
        }
        List<String> drift = new ArrayList<>();
        if (!graphed.equals(expected)) {
            drift.add("the dashboard graphs " + Meters.QUEUE_MESSAGES + " for (lane state) " + graphed
                    + "; the code samples " + expected);
        }
        return drift;
    }
}
