package dev.punctual.core.exec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;

/**
 * Firing lateness (the binary's release − due time) as a CloudWatch Embedded Metric Format line. Printed on stdout, the
 * container's log driver ships it and CloudWatch turns it into a metric: no API call and no extra permission.
 */
public final class FiringMetrics {
    public static final String NAMESPACE = "Punctual";
    public static final String LATENESS_METRIC = "FiringLatenessMs";
    public static final String DIMENSION = "Prefix";
    private static final ObjectMapper JSON = new ObjectMapper();

    private FiringMetrics() {}

    public static String latenessLine(String prefix, Duration lateness, Instant at) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode aws = root.putObject("_aws");
        aws.put("Timestamp", at.toEpochMilli());
        ObjectNode directive = aws.putArray("CloudWatchMetrics").addObject();
        directive.put("Namespace", NAMESPACE);
        directive.putArray("Dimensions").addArray().add(DIMENSION);
        ObjectNode metric = directive.putArray("Metrics").addObject();
        metric.put("Name", LATENESS_METRIC);
        metric.put("Unit", "Milliseconds");
        root.put(DIMENSION, prefix);
        root.put(LATENESS_METRIC, Math.max(0, lateness.toMillis()));
        return root.toString();
    }
}
