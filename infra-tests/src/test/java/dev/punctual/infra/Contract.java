package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.punctual.core.config.Deployment;
import dev.punctual.core.config.Settings;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.QueueSpec;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.infra.TableSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What infra/terraform must agree on with the code. Each check returns the drift it finds (empty: in step), so
 * the same checks can be shown to fail on a deliberately broken copy.
 */
final class Contract {
    static final String PREFIX_EXPR = "${var.name_prefix}";
    /** The local that names the lanes and their queue names' suffixes. */
    static final String LANES = "run_lanes";

    private static final Pattern TABLE_REF =
            Pattern.compile("aws_dynamodb_table\\.(\\w+(?:\\[\"[^\"]*\"])?)\\.arn}?(/index/\\*)?");
    private static final Pattern QUEUE_REF = Pattern.compile("aws_sqs_queue\\.(\\w+(?:\\[\"[^\"]*\"])?)\\.arn");
    /** Every instance's ARN: {@code values(aws_sqs_queue.runs)[*].arn}. */
    private static final Pattern QUEUES_REF = Pattern.compile("values\\(aws_sqs_queue\\.(\\w+)\\)\\[\\*]\\.arn");

    private static final Pattern BUCKET_REF = Pattern.compile("aws_s3_bucket\\.(\\w+)\\.arn");
    private static final Pattern BUS_REF = Pattern.compile("aws_cloudwatch_event_bus\\.(\\w+)\\.arn");
    private static final Pattern ENV_NAME = Pattern.compile("\\b(PUNCTUAL_[A-Z0-9_]+)\\b");

    private final Terraform tf;
    private final Resources resources = new Resources(Settings.defaults());

    Contract(Terraform tf) {
        this.tf = tf;
    }

    /** The Terraform name expression of a code resource name: the default prefix becomes the variable. */
    static String nameExpr(String codeName) {
        return PREFIX_EXPR + codeName.substring(Deployment.DEFAULT_PREFIX.length());
    }

    List<String> tables() {
        List<String> drift = new ArrayList<>();
        for (TableSpec spec : resources.tables()) {
            Optional<JsonNode> found = table(spec.name());
            if (found.isEmpty()) {
                drift.add("no aws_dynamodb_table named " + nameExpr(spec.name()));
                continue;
            }
            JsonNode t = found.get();
            String where = "table " + spec.name() + ": ";
            expect(drift, where + "hash_key", spec.hashKey(), t.path("hash_key").asText(null));
            expect(
                    drift,
                    where + "range_key",
                    spec.rangeKey(),
                    t.path("range_key").asText(null));
            expect(
                    drift,
                    where + "billing_mode",
                    "PAY_PER_REQUEST",
                    t.path("billing_mode").asText(null));
            Set<String> declared = new HashSet<>();
            tf.nested(t, "attribute").forEach(a -> {
                declared.add(a.path("name").asText());
                expect(
                        drift,
                        where + "attribute " + a.path("name").asText() + " type",
                        "S",
                        a.path("type").asText());
            });
            Set<String> keys = new TreeSet<>();
            keys.add(spec.hashKey());
            if (spec.rangeKey() != null) {
                keys.add(spec.rangeKey());
            }
            spec.indexes().forEach(i -> {
                keys.add(i.hashKey());
                keys.add(i.rangeKey());
            });
            expect(drift, where + "attributes", keys, new TreeSet<>(declared));
            Set<String> indexes = new TreeSet<>();
            tf.nested(t, "global_secondary_index").forEach(g -> {
                indexes.add(g.path("name").asText());
                spec.indexes().stream()
                        .filter(i -> i.name().equals(g.path("name").asText()))
                        .findFirst()
                        .ifPresent(i -> {
                            expect(
                                    drift,
                                    where + "index " + i.name() + " hash_key",
                                    i.hashKey(),
                                    g.path("hash_key").asText(null));
                            expect(
                                    drift,
                                    where + "index " + i.name() + " range_key",
                                    i.rangeKey(),
                                    g.path("range_key").asText(null));
                            expect(
                                    drift,
                                    where + "index " + i.name() + " projection",
                                    i.projection(),
                                    g.path("projection_type").asText(null));
                        });
            });
            expect(
                    drift,
                    where + "indexes",
                    new TreeSet<>(spec.indexes().stream()
                            .map(TableSpec.IndexSpec::name)
                            .toList()),
                    indexes);
            JsonNode ttl = tf.nested(t, "ttl").stream().findFirst().orElse(MissingNode.getInstance());
            if (spec.ttlAttribute() == null) {
                if (ttl.path("enabled").asBoolean(false)) {
                    drift.add(where + "has a TTL the code does not use");
                }
            } else {
                expect(
                        drift,
                        where + "ttl attribute",
                        spec.ttlAttribute(),
                        ttl.path("attribute_name").asText(null));
                expect(drift, where + "ttl enabled", true, ttl.path("enabled").asBoolean(false));
            }
            expect(
                    drift,
                    where + "point-in-time recovery",
                    true,
                    t.path("point_in_time_recovery").path(0).path("enabled").asBoolean(false));
            expect(
                    drift,
                    where + "server-side encryption",
                    true,
                    t.path("server_side_encryption").path(0).path("enabled").asBoolean(false));
        }
        return drift;
    }

    /**
     * The lanes Terraform declares ({@code local.run_lanes}) are the code's ({@link Priority}): the same labels, which
     * are also the values of the queue metric's lane dimension, each with its queue names' suffix.
     */
    List<String> lanes() {
        List<String> drift = new ArrayList<>();
        Map<String, String> code = new TreeMap<>();
        for (Priority p : Priority.values()) {
            code.put(p.label(), p.queueSuffix);
        }
        Map<String, String> terraform = new TreeMap<>();
        tf.local(LANES)
                .ifPresentOrElse(
                        l -> l.fields()
                                .forEachRemaining(e ->
                                        terraform.put(e.getKey(), e.getValue().asText(null))),
                        () -> drift.add("no local." + LANES));
        expect(drift, "lanes and their queue suffixes (local." + LANES + ")", code, terraform);
        return drift;
    }

    /**
     * Every lane's run queue and dead-letter queue, as the code names them ({@link Resources#runQueues()}): the queue
     * redrives to its own lane's DLQ after the code's receive count, hides a message for one lease, keeps it as long
     * as the code assumes; both are encrypted; the DLQ takes its own lane's queue's messages only (redrive allow).
     */
    List<String> queues() {
        List<String> drift = new ArrayList<>();
        for (QueueSpec spec : resources.runQueues()) {
            Optional<Terraform.Instance> q = queue(spec.name());
            Optional<Terraform.Instance> dlq = queue(spec.deadLetterName());
            if (q.isEmpty() || dlq.isEmpty()) {
                drift.add("queues " + nameExpr(spec.name()) + " and " + nameExpr(spec.deadLetterName())
                        + " must both exist");
                continue;
            }
            JsonNode runs = q.get().block();
            String where = "queue " + spec.name() + ": ";
            String redrive = runs.path("redrive_policy").asText("");
            if (!redrive.contains(dlq.get().address() + ".arn")) {
                drift.add("queue " + spec.name() + " must redrive to " + spec.deadLetterName());
            }
            Matcher m = Pattern.compile("maxReceiveCount\\s*=\\s*\"?(\\d+)").matcher(redrive);
            expect(
                    drift,
                    where + "maxReceiveCount",
                    spec.maxReceiveCount(),
                    m.find() ? Integer.parseInt(m.group(1)) : null);
            // The queue's visibility timeout is the executor lease: a message must not reappear while its run is
            // still leased, and must reappear soon after a lease is abandoned.
            expect(
                    drift,
                    where + "visibility_timeout_seconds",
                    spec.visibilityTimeoutSeconds(),
                    number(runs.path("visibility_timeout_seconds")));
            expect(
                    drift,
                    where + "message_retention_seconds",
                    spec.messageRetentionSeconds(),
                    number(runs.path("message_retention_seconds")));
            for (Terraform.Instance i : List.of(q.get(), dlq.get())) {
                expect(
                        drift,
                        i.address() + " sqs_managed_sse_enabled",
                        true,
                        i.block().path("sqs_managed_sse_enabled").asBoolean(false));
            }
            drift.addAll(redriveAllowed(spec, q.get(), dlq.get()));
        }
        return drift;
    }

    /** The DLQ's redrive allow policy names exactly its lane's queue: a redrive returns each run to its lane. */
    private List<String> redriveAllowed(QueueSpec spec, Terraform.Instance queue, Terraform.Instance dlq) {
        List<Terraform.Instance> policies = tf.instances("aws_sqs_queue_redrive_allow_policy").stream()
                .filter(p -> p.block().path("queue_url").asText("").equals("${" + dlq.address() + ".id}"))
                .toList();
        if (policies.size() != 1) {
            return List.of("expected one aws_sqs_queue_redrive_allow_policy of " + dlq.address() + ", found "
                    + policies.stream().map(Terraform.Instance::address).toList());
        }
        String policy = policies.getFirst().block().path("redrive_allow_policy").asText("");
        Matcher sources = Pattern.compile("sourceQueueArns\\s*=\\s*\\[((?:[^\\[\\]]|\\[[^]]*])*)]")
                .matcher(policy);
        String allowed = sources.find() ? sources.group(1).strip() : null;
        List<String> drift = new ArrayList<>();
        expect(drift, policies.getFirst().address() + " sourceQueueArns", queue.address() + ".arn", allowed);
        if (!policy.contains("\"byQueue\"")) {
            drift.add(policies.getFirst().address() + " must allow redrives byQueue, from " + spec.name() + " only");
        }
        return drift;
    }

    /**
     * Every lane has an alarm on its dead-letter queue's depth and one on its queue's oldest message, each named after
     * its queue and saying its lane: a lane's runs can be dead-lettered, or left waiting, without the others'.
     */
    List<String> laneAlarms() {
        List<String> drift = new ArrayList<>();
        List<Terraform.Instance> alarms = tf.instances("aws_cloudwatch_metric_alarm");
        for (Priority lane : Priority.values()) {
            QueueSpec spec = resources.runQueue(lane);
            Optional<Terraform.Instance> q = queue(spec.name());
            Optional<Terraform.Instance> dlq = queue(spec.deadLetterName());
            if (q.isEmpty() || dlq.isEmpty()) {
                drift.add("the " + lane.label() + " lane has no queues to watch");
                continue;
            }
            drift.addAll(
                    laneAlarm(alarms, lane, dlq.get(), "ApproximateNumberOfMessagesVisible", spec.deadLetterName()));
            drift.addAll(laneAlarm(alarms, lane, q.get(), "ApproximateAgeOfOldestMessage", spec.name()));
        }
        return drift;
    }

    private List<String> laneAlarm(
            List<Terraform.Instance> alarms, Priority lane, Terraform.Instance queue, String metric, String codeName) {
        String what = "the " + lane.label() + " lane's " + metric + " alarm on " + queue.address();
        List<Terraform.Instance> found = alarms.stream()
                .filter(a -> a.block().path("namespace").asText().equals("AWS/SQS"))
                .filter(a -> a.block().path("metric_name").asText().equals(metric))
                .filter(a -> a.block()
                        .path("dimensions")
                        .path("QueueName")
                        .asText()
                        .equals("${" + queue.address() + ".name}"))
                .toList();
        if (found.size() != 1) {
            return List.of(what + ": expected one, found "
                    + found.stream().map(Terraform.Instance::address).toList());
        }
        List<String> drift = new ArrayList<>();
        JsonNode alarm = found.getFirst().block();
        String name = alarm.path("alarm_name").asText();
        if (!name.startsWith(nameExpr(codeName) + "-")) {
            drift.add(what + ": its name " + name + " does not start with its queue's, " + nameExpr(codeName));
        }
        String description = alarm.path("alarm_description").asText();
        // In its own words: a queue's name interpolated into it would say the lane whatever the text around it.
        String words = description.replaceAll("\\$\\{[^}]*}", "");
        if (!Pattern.compile("(?i)\\b" + lane.label() + "\\b").matcher(words).find()) {
            drift.add(what + ": its description does not say the lane: " + description);
        }
        return drift;
    }

    /**
     * Every component is given the normal lane's queue URL ({@code PUNCTUAL_QUEUE_URL}), from which the code makes the
     * other lanes' (queue/RunQueues): any other queue's would send every lane's runs to the wrong queues.
     */
    List<String> queueUrl(Map<String, JsonNode> components) {
        List<String> drift = new ArrayList<>();
        Optional<Terraform.Instance> normal =
                queue(resources.runQueue(Priority.NORMAL).name());
        if (normal.isEmpty()) {
            return List.of("no queue named "
                    + nameExpr(resources.runQueue(Priority.NORMAL).name()));
        }
        String expected = "${" + normal.get().address() + ".url}";
        components.forEach((component, block) -> {
            Set<String> values = new TreeSet<>();
            tf.walk(
                    block,
                    (key, value) -> {
                        if (key.equals("PUNCTUAL_QUEUE_URL")) {
                            values.add(value.asText());
                            return false;
                        }
                        return true;
                    },
                    expression -> {});
            expect(drift, component + " PUNCTUAL_QUEUE_URL", Set.of(expected), values);
        });
        return drift;
    }

    /** Every {@code PUNCTUAL_*} variable set for a component is one the code reads; the resource names are set. */
    List<String> environment(Map<String, JsonNode> components) {
        List<String> drift = new ArrayList<>();
        Set<String> known = Config.environmentNames();
        Set<String> required = Set.of("PUNCTUAL_PREFIX", "PUNCTUAL_BUCKET", "PUNCTUAL_QUEUE_URL");
        components.forEach((component, block) -> {
            Set<String> set = envNames(block);
            for (String name : set) {
                if (!known.contains(name)) {
                    drift.add(component + " sets " + name + ", which no code reads");
                }
            }
            for (String name : required) {
                if (!set.contains(name)) {
                    drift.add(component + " does not set " + name);
                }
            }
        });
        return drift;
    }

    List<String> permissions(String policyDocument, Set<CodeActions.Permission> needed) {
        List<String> drift = new ArrayList<>();
        Optional<Terraform.Instance> doc = tf.dataInstanceAt("aws_iam_policy_document." + policyDocument);
        if (doc.isEmpty()) {
            return List.of("no data.aws_iam_policy_document." + policyDocument);
        }
        Set<CodeActions.Permission> granted = new TreeSet<>();
        for (JsonNode st : tf.nested(doc.get().block(), "statement")) {
            if ("Deny".equalsIgnoreCase(st.path("effect").asText("Allow"))) {
                continue;
            }
            for (JsonNode a : st.path("actions")) {
                String action = a.asText();
                if (!action.matches("(dynamodb|sqs|s3|events):.*")) {
                    continue;
                }
                // A list of ARNs, or one expression giving several (every lane's queue).
                JsonNode resources = st.path("resources");
                for (JsonNode r : resources.isTextual() ? List.of(resources) : resources) {
                    resourceKeys(r.asText()).forEach(k -> granted.add(new CodeActions.Permission(action, k)));
                }
            }
        }
        for (CodeActions.Permission p : needed) {
            if (!granted.contains(p)) {
                drift.add(policyDocument + " lacks " + p + " (the code calls it)");
            }
        }
        for (CodeActions.Permission p : granted) {
            if (!needed.contains(p)) {
                drift.add(policyDocument + " grants " + p + ", which the code never calls");
            }
        }
        return drift;
    }

    /** No Allow statement anywhere grants a wildcard action (a Deny of "s3:*" over plain HTTP only restricts). */
    List<String> noWildcardActions() {
        List<String> drift = new ArrayList<>();
        tf.dataInstances("aws_iam_policy_document")
                .forEach(doc -> tf.nested(doc.block(), "statement")
                        .forEach(st -> st.path("actions").forEach(a -> {
                            if ("Deny".equalsIgnoreCase(st.path("effect").asText("Allow"))) {
                                return;
                            }
                            if (a.asText().contains("*")) {
                                drift.add("policy document " + doc.address() + " grants wildcard action " + a.asText());
                            }
                        })));
        return drift;
    }

    Optional<JsonNode> table(String codeName) {
        return tf.instances("aws_dynamodb_table").stream()
                .map(Terraform.Instance::block)
                .filter(t -> nameExpr(codeName).equals(t.path("name").asText()))
                .findFirst();
    }

    /** The instance of {@code aws_sqs_queue} with the code's name for a queue (one of a for_each, or its own block). */
    Optional<Terraform.Instance> queue(String codeName) {
        return tf.instances("aws_sqs_queue").stream()
                .filter(i -> nameExpr(codeName).equals(i.block().path("name").asText()))
                .findFirst();
    }

    /** The resource keys (see {@link CodeActions#ADAPTER_RESOURCE}) an ARN expression stands for. */
    private List<String> resourceKeys(String arnExpr) {
        Matcher queues = QUEUES_REF.matcher(arnExpr);
        if (queues.find()) {
            return tf.instances("aws_sqs_queue").stream()
                    .filter(i -> i.name().equals(queues.group(1)))
                    .map(i -> suffix(i.block()).map(s -> "queue:" + s).orElseThrow())
                    .toList();
        }
        return resourceKey(arnExpr).stream().toList();
    }

    private Optional<String> resourceKey(String arnExpr) {
        Matcher t = TABLE_REF.matcher(arnExpr);
        if (t.find()) {
            // "<table arn>/index/*" is a resource of its own: a query of an index is not one of the table.
            String indexes = t.group(2) == null ? "" : CodeActions.INDEXES;
            return suffix(tf.instanceAt("aws_dynamodb_table." + t.group(1))
                            .map(Terraform.Instance::block)
                            .orElse(null))
                    .map(s -> "table:" + s + indexes);
        }
        Matcher q = QUEUE_REF.matcher(arnExpr);
        if (q.find()) {
            return suffix(tf.instanceAt("aws_sqs_queue." + q.group(1))
                            .map(Terraform.Instance::block)
                            .orElse(null))
                    .map(s -> "queue:" + s);
        }
        if (BUCKET_REF.matcher(arnExpr).find()) {
            return Optional.of("bucket:artifacts");
        }
        Matcher bus = BUS_REF.matcher(arnExpr);
        if (bus.find()) {
            return suffix(tf.resources("aws_cloudwatch_event_bus").get(bus.group(1)))
                    .map(s -> "bus:" + s);
        }
        return Optional.empty();
    }

    private static Optional<String> suffix(JsonNode resource) {
        if (resource == null) {
            return Optional.empty();
        }
        String name = resource.path("name").asText("");
        return name.startsWith(PREFIX_EXPR + "-")
                ? Optional.of(name.substring(PREFIX_EXPR.length() + 1))
                : Optional.of(name);
    }

    /** Names of PUNCTUAL_* variables a block sets, following references to locals. */
    Set<String> envNames(JsonNode block) {
        Set<String> out = new LinkedHashSet<>();
        tf.walk(
                block,
                (key, value) -> {
                    if (key.startsWith("PUNCTUAL_")) {
                        out.add(key);
                    }
                    return true;
                },
                expression -> {
                    Matcher names = ENV_NAME.matcher(expression);
                    while (names.find()) {
                        out.add(names.group(1));
                    }
                });
        return out;
    }

    private Integer number(JsonNode value) {
        if (value.isNumber()) {
            return value.asInt();
        }
        Matcher v = Pattern.compile("^\\$\\{var\\.(\\w+)}$").matcher(value.asText(""));
        if (v.find() && tf.hasVariable(v.group(1))) {
            JsonNode d = tf.variableDefault(v.group(1));
            return d.isNumber() ? d.asInt() : null;
        }
        return null;
    }

    private static void expect(List<String> drift, String what, Object expected, Object actual) {
        if (!java.util.Objects.equals(expected, actual)) {
            drift.add(what + ": code says " + expected + ", terraform says " + actual);
        }
    }
}
