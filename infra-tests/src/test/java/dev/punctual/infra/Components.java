package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.wiring.CoreProducer;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The deployables: where their code starts, and where Terraform configures them. */
final class Components {
    /**
     * A deployable: its code's entry points, its policy document (the address of its instance, without
     * {@code data.aws_iam_policy_document.}), and its role ({@code <prefix>-<role>}).
     */
    record Component(
            String name, List<Class<?>> entryClasses, Set<String> entryMethods, String policyDocument, String role) {}

    static final List<Component> ALL = all();

    private Components() {}

    private static List<Component> all() {
        try {
            return List.of(
                    // The API: every public method of every REST resource.
                    new Component("api", ApiRoutes.resourceClasses(), Set.of(), document("api"), "api"),
                    // The sweeper and the executor also publish run outcomes from what their configuration builds
                    // (CoreProducer.notices: a publisher whose thread sends them).
                    new Component(
                            "sweeper",
                            List.of(dev.punctual.sweeper.SweepHandler.class, CoreProducer.class),
                            Set.of("handleRequest", "notices"),
                            document("sweeper"),
                            "sweeper"),
                    new Component(
                            "executor",
                            List.of(dev.punctual.executor.ExecutorLifecycle.class, CoreProducer.class),
                            Set.of("start", "stop", "notices"),
                            document("executor"),
                            // The task role; the execution role is ECS's own, not the program's.
                            "executor-task"));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The policy document of a component's own permissions: {@code component["<component>"]}. */
    private static String document(String component) {
        return "component[\"" + component + "\"]";
    }

    /** The components that run as Lambda functions, each named {@code <prefix>-<component>}. */
    static final List<String> LAMBDAS = List.of("api", "sweeper");

    /**
     * A component's Lambda function: the one instance of {@code aws_lambda_function} named
     * {@code <prefix>-<component>}, however it is declared (its own block, or a key of a for_each).
     */
    static Terraform.Instance lambdaFunction(Terraform tf, String component) {
        String name = Contract.PREFIX_EXPR + "-" + component;
        List<Terraform.Instance> all = tf.instances("aws_lambda_function");
        List<Terraform.Instance> found = all.stream()
                .filter(i -> name.equals(i.block().path("function_name").asText()))
                .toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one aws_lambda_function named " + name + ", found "
                    + found.stream().map(Terraform.Instance::address).toList() + " among "
                    + all.stream().map(Terraform.Instance::address).toList());
        }
        return found.getFirst();
    }

    /** The Terraform block holding each component's environment. */
    static Map<String, JsonNode> environments(Terraform tf) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (String lambda : LAMBDAS) {
            out.put(lambda, lambdaFunction(tf, lambda).block().path("environment"));
        }
        out.put(
                "executor",
                tf.resources("aws_ecs_task_definition").values().stream()
                        .findFirst()
                        .map(t -> t.path("container_definitions"))
                        .orElseThrow(() -> new AssertionError("no aws_ecs_task_definition")));
        return out;
    }

    /** The values a {@code for_each = toset(local.x)} (or a literal list) iterates over. */
    static Set<String> forEachValues(Terraform tf, JsonNode resource) {
        String forEach = resource.path("for_each").asText("");
        Set<String> out = new TreeSet<>();
        Matcher local = Pattern.compile("local\\.(\\w+)").matcher(forEach);
        JsonNode values = local.find() ? tf.local(local.group(1)).orElseThrow() : resource.path("for_each");
        if (values.isObject()) {
            values.fieldNames().forEachRemaining(out::add);
        } else {
            values.forEach(v -> out.add(v.asText()));
        }
        return out;
    }

    /** The Java release a class was compiled for (class file major version − 44). */
    static int classFileRelease(Class<?> c) throws IOException {
        try (var in = new DataInputStream(c.getResourceAsStream(c.getSimpleName() + ".class"))) {
            in.readInt();
            in.readUnsignedShort();
            return in.readUnsignedShort() - 44;
        }
    }
}
