package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What belongs to one component stays with it, however the module declares it (a block each, or one block with
 * for_each): a Lambda's role, log group, logs policy and alias are its own, its settings are its own variables,
 * each component's permissions are attached to its own role only, and every variable and output is typed and
 * described. Each check returns the drift it finds.
 */
final class WiringContract {
    private static final Pattern ROLE_REF =
            Pattern.compile("^\\$\\{aws_iam_role\\.(\\w+(?:\\[\"[^\"]*\"])?)\\.(arn|id|name)}$");
    private static final Pattern DOCUMENT_REF =
            Pattern.compile("^\\$\\{data\\.aws_iam_policy_document\\.(\\w+(?:\\[(?:\"[^\"]*\"|\\d+)])?)\\.json}$");
    private static final Set<String> LOG_ACTIONS = Set.of("logs:CreateLogStream", "logs:PutLogEvents");

    private final Terraform tf;

    WiringContract(Terraform tf) {
        this.tf = tf;
    }

    /**
     * Each Lambda runs as the role named after it, after its own log group and logs policy exist; that policy lets
     * its role write to that log group only; its {@code live} alias points at it.
     */
    List<String> lambdas() {
        List<String> drift = new ArrayList<>();
        for (String component : Components.LAMBDAS) {
            Terraform.Instance fn = Components.lambdaFunction(tf, component);
            String where = fn.address();
            String name = Contract.PREFIX_EXPR + "-" + component;
            Optional<Terraform.Instance> role = role(fn.block().path("role"));
            if (role.isEmpty() || !name.equals(role.get().block().path("name").asText())) {
                drift.add(where + ": role " + fn.block().path("role").asText() + " is not the role named " + name);
                continue;
            }
            String logGroupName = "/aws/lambda/" + name;
            List<Terraform.Instance> groups = tf.instances("aws_cloudwatch_log_group").stream()
                    .filter(g -> logGroupName.equals(g.block().path("name").asText()))
                    .toList();
            if (groups.size() != 1) {
                drift.add(where + ": expected one log group named " + logGroupName + ", found "
                        + groups.stream().map(Terraform.Instance::address).toList());
                continue;
            }
            Terraform.Instance group = groups.getFirst();
            expect(
                    drift,
                    group.address() + " retention",
                    "${var.log_retention_days}",
                    group.block().path("retention_in_days").asText(null));
            List<Terraform.Instance> logPolicies = tf.instances("aws_iam_role_policy").stream()
                    .filter(p -> role(p.block().path("role")).equals(role))
                    .filter(p -> writesOnlyTo(p, group))
                    .toList();
            if (logPolicies.size() != 1) {
                drift.add(where + ": expected one policy of " + role.get().address() + " letting it write to "
                        + group.address() + " only, found "
                        + logPolicies.stream().map(Terraform.Instance::address).toList());
            } else if (!dependsOn(fn, group) || !dependsOn(fn, logPolicies.getFirst())) {
                drift.add(where + " must depend on " + group.address() + " and "
                        + logPolicies.getFirst().address() + ", or an early invocation logs nowhere");
            }
            long aliases = tf.instances("aws_lambda_alias").stream()
                    .filter(a -> a.block().path("name").asText().equals("live"))
                    .filter(a ->
                            a.block().path("function_name").asText().equals("${" + fn.address() + ".function_name}"))
                    .filter(a -> a.block().path("function_version").asText().equals("${" + fn.address() + ".version}"))
                    .count();
            if (aliases != 1) {
                drift.add(where + ": expected one alias live of its own version, found " + aliases);
            }
        }
        return drift;
    }

    /**
     * Each Lambda takes its package, memory, timeout and reserved concurrency from its own variables
     * ({@code <component>_zip}, {@code _memory_size}, {@code _timeout}, {@code _reserved_concurrency}); only the api
     * is told an authentication mode.
     */
    List<String> lambdaSettings(Contract contract) {
        List<String> drift = new ArrayList<>();
        for (String component : Components.LAMBDAS) {
            Terraform.Instance fn = Components.lambdaFunction(tf, component);
            JsonNode b = fn.block();
            String where = fn.address();
            expect(
                    drift,
                    where + " memory_size",
                    "${var." + component + "_memory_size}",
                    b.path("memory_size").asText(null));
            expect(
                    drift,
                    where + " timeout",
                    "${var." + component + "_timeout}",
                    b.path("timeout").asText(null));
            expect(
                    drift,
                    where + " reserved_concurrent_executions",
                    "${var." + component + "_reserved_concurrency}",
                    b.path("reserved_concurrent_executions").asText(null));
            for (String attribute : List.of("filename", "source_code_hash")) {
                String pkg = packageOf(b.path(attribute).asText(""));
                if (!Objects.equals(pkg, component + "_zip")) {
                    drift.add(where + " " + attribute + " is the package " + pkg + ", not " + component + "_zip");
                }
            }
            boolean auth =
                    contract.envNames(b.path("environment")).stream().anyMatch(n -> n.startsWith("PUNCTUAL_AUTH_"));
            if (auth != component.equals("api")) {
                drift.add(where
                        + (auth
                                ? " is told an authentication mode, which only the api uses"
                                : " is not told its authentication mode"));
            }
        }
        return drift;
    }

    /**
     * Each component's policy document is attached to its own role, and to no other; the artifacts key's policy to
     * exactly the roles whose documents reach into the bucket.
     */
    List<String> attachments() {
        List<String> drift = new ArrayList<>();
        Set<String> bucketRoles = new TreeSet<>();
        for (Components.Component c : Components.ALL) {
            Set<String> roles = rolesWith(c.policyDocument());
            expect(
                    drift,
                    "roles with data.aws_iam_policy_document." + c.policyDocument(),
                    Set.of(roleName(c.role())),
                    roles);
            Optional<Terraform.Instance> doc = tf.dataInstanceAt("aws_iam_policy_document." + c.policyDocument());
            if (doc.isPresent()
                    && tf.nested(doc.get().block(), "statement").toString().contains("\"s3:")) {
                bucketRoles.add(roleName(c.role()));
            }
        }
        if (bucketRoles.isEmpty()) {
            drift.add("no component's document reaches into the bucket");
        }
        expect(
                drift,
                "roles with data.aws_iam_policy_document.artifacts_kms[0]",
                bucketRoles,
                rolesWith("artifacts_kms[0]"));
        return drift;
    }

    /**
     * Every variable has a type and a description, every output a description (tflint's typed and documented
     * rules).
     */
    static List<String> documented(String where, Terraform module) {
        List<String> drift = new ArrayList<>();
        module.variables().forEach((name, v) -> {
            if (v.path("type").asText("").isBlank()) {
                drift.add(where + " variable " + name + " has no type");
            }
            if (v.path("description").asText("").isBlank()) {
                drift.add(where + " variable " + name + " has no description");
            }
        });
        module.outputs().forEach((name, o) -> {
            if (o.path("description").asText("").isBlank()) {
                drift.add(where + " output " + name + " has no description");
            }
        });
        return drift;
    }

    /** The names ({@code <prefix>-<role>}) of the roles a policy document is attached to. */
    private Set<String> rolesWith(String document) {
        Set<String> out = new TreeSet<>();
        for (Terraform.Instance p : tf.instances("aws_iam_role_policy")) {
            Matcher d = DOCUMENT_REF.matcher(p.block().path("policy").asText(""));
            if (d.matches() && d.group(1).equals(document)) {
                out.add(role(p.block().path("role"))
                        .map(r -> r.block().path("name").asText())
                        .orElse(p.address() + ": no role of the module"));
            }
        }
        return out;
    }

    private static String roleName(String role) {
        return Contract.PREFIX_EXPR + "-" + role;
    }

    private Optional<Terraform.Instance> role(JsonNode reference) {
        Matcher m = ROLE_REF.matcher(reference.asText(""));
        return m.matches() ? tf.instanceAt("aws_iam_role." + m.group(1)) : Optional.empty();
    }

    /** Whether a role policy's document allows the log actions, and only them, on that log group's streams only. */
    private boolean writesOnlyTo(Terraform.Instance policy, Terraform.Instance group) {
        Matcher d = DOCUMENT_REF.matcher(policy.block().path("policy").asText(""));
        Optional<Terraform.Instance> doc =
                d.matches() ? tf.dataInstanceAt("aws_iam_policy_document." + d.group(1)) : Optional.empty();
        if (doc.isEmpty() || tf.nested(doc.get().block(), "statement").isEmpty()) {
            return false;
        }
        for (JsonNode st : tf.nested(doc.get().block(), "statement")) {
            Set<String> actions = new TreeSet<>();
            st.path("actions").forEach(a -> actions.add(a.asText()));
            List<String> resources = new ArrayList<>();
            st.path("resources").forEach(r -> resources.add(r.asText()));
            if (!LOG_ACTIONS.equals(actions) || !resources.equals(List.of("${" + group.address() + ".arn}:*"))) {
                return false;
            }
        }
        return true;
    }

    private static boolean dependsOn(Terraform.Instance fn, Terraform.Instance on) {
        String resource = "${" + on.type() + "." + on.name() + "}";
        String instance = "${" + on.address() + "}";
        for (JsonNode d : fn.block().path("depends_on")) {
            if (d.asText().equals(resource) || d.asText().equals(instance)) {
                return true;
            }
        }
        return false;
    }

    /** The {@code <x>_zip} variable a package expression stands for (through the local that resolves its path). */
    private String packageOf(String expression) {
        Matcher var = Pattern.compile("\\bvar\\.(\\w+_zip)\\b").matcher(expression);
        if (var.find()) {
            return var.group(1);
        }
        Matcher local = Pattern.compile("\\blocal\\.(\\w+)\\b").matcher(expression);
        if (local.find()) {
            return tf.local(local.group(1)).map(v -> packageOf(v.asText())).orElse(null);
        }
        return null;
    }

    private static void expect(List<String> drift, String what, Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            drift.add(what + ": expected " + expected + ", terraform says " + actual);
        }
    }
}
