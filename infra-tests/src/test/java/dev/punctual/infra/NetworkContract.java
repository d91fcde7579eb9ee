package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The executor tasks' network (and so every run's): a VPC endpoint for each service the executor calls, and a
 * security group whose egress is HTTPS to those endpoints, plus HTTPS anywhere only with run_egress =
 * "internet-https". The static checks read the parsed HCL; {@link #plans} has Terraform count the rules and
 * endpoints for each case, offline ({@link OfflinePlan}). Each check returns the drift it finds.
 */
final class NetworkContract {
    static final String SECURITY_GROUP = "aws_security_group.executor";
    private static final Pattern LOCAL_REF = Pattern.compile("local\\.(\\w+)");
    /** Gateway endpoints are free; the module uses them where AWS offers them. */
    static final Set<String> GATEWAY_SERVICES = Set.of("s3", "dynamodb");
    /**
     * What a Fargate task itself needs besides what the executor's code calls: the image pull (ECR API, ECR Docker,
     * the layers from S3) and the awslogs driver, both through the task's network interface.
     */
    static final Set<String> PLATFORM_SERVICES = Set.of("ecr.api", "ecr.dkr", "s3", "logs");

    /** What a rule's destination is. */
    enum Destination {
        CIDR,
        PREFIX_LIST,
        SECURITY_GROUP,
        NONE
    }

    private final Terraform tf;

    NetworkContract(Terraform tf) {
        this.tf = tf;
    }

    /** The endpoints needed: every service the executor's code calls (derived from the compiled code), and the platform's. */
    static Map<String, String> neededEndpoints() throws IOException {
        Components.Component executor = Components.ALL.stream()
                .filter(c -> c.name().equals("executor"))
                .findFirst()
                .orElseThrow();
        Map<String, String> out = new TreeMap<>();
        for (CodeActions.Permission p : new CodeActions().derive(executor.entryClasses(), executor.entryMethods())) {
            String service = p.action().substring(0, p.action().indexOf(':'));
            out.put(service, GATEWAY_SERVICES.contains(service) ? "Gateway" : "Interface");
        }
        PLATFORM_SERVICES.forEach(s -> out.put(s, GATEWAY_SERVICES.contains(s) ? "Gateway" : "Interface"));
        return out;
    }

    /** The endpoints the module can create, service → type, from each {@code aws_vpc_endpoint}'s for_each map. */
    List<String> endpoints(Map<String, String> needed) {
        Map<String, String> declared = new TreeMap<>();
        List<String> drift = new ArrayList<>();
        Map<String, JsonNode> resources = tf.resources("aws_vpc_endpoint");
        if (resources.isEmpty()) {
            return List.of("no aws_vpc_endpoint");
        }
        resources.forEach((name, r) -> {
            JsonNode map = forEachMap(r);
            if (map == null) {
                drift.add("aws_vpc_endpoint." + name + ": for_each must be a literal map of service → type");
                return;
            }
            Set<String> needs = new TreeSet<>();
            map.fields().forEachRemaining(e -> {
                declared.put(e.getKey(), e.getValue().asText());
                // A gateway endpoint is routes in the subnets' tables; an interface endpoint answers the service's
                // own DNS name in the VPC (private DNS), behind a security group.
                needs.addAll(
                        e.getValue().asText().equals("Gateway")
                                ? List.of("route_table_ids")
                                : List.of("subnet_ids", "security_group_ids", "private_dns_enabled"));
            });
            needs.removeIf(r::has);
            if (!needs.isEmpty()) {
                drift.add("aws_vpc_endpoint." + name + " does not set " + needs);
            }
        });
        if (!declared.equals(needed)) {
            drift.add("VPC endpoints: the executor needs " + needed + ", the module declares " + declared);
        }
        return drift;
    }

    /**
     * Every egress rule of the executor's security group is HTTPS (tcp 443) to a prefix list, a security group or
     * a CIDR, and a CIDR only under {@code var.run_egress}; no other kind of rule touches the group.
     */
    List<String> egressRules() {
        List<String> drift = new ArrayList<>();
        Map<String, JsonNode> rules = executorEgressRules();
        if (rules.isEmpty()) {
            drift.add("no aws_vpc_security_group_egress_rule on " + SECURITY_GROUP);
        }
        rules.forEach((name, r) -> {
            String where = "aws_vpc_security_group_egress_rule." + name;
            if (!"tcp".equals(r.path("ip_protocol").asText())
                    || r.path("from_port").asInt(-1) != 443
                    || r.path("to_port").asInt(-1) != 443) {
                drift.add(where + ": only HTTPS (tcp 443) may leave the executor's tasks, not " + r);
            }
            Destination d = destination(r);
            if (d == Destination.NONE) {
                drift.add(where + ": no destination");
            }
            if (d == Destination.CIDR
                    && !(r.path("count").asText("") + r.path("for_each").asText("")).contains("var.run_egress")) {
                drift.add(where + ": an address range is allowed regardless of run_egress");
            }
        });
        tf.resources("aws_security_group").forEach((name, sg) -> {
            if (sg.has("egress") || sg.has("ingress")) {
                drift.add("aws_security_group." + name + " has inline rules: use the separate rule resources");
            }
        });
        tf.resources("aws_security_group_rule").forEach((name, r) -> {
            if (r.path("security_group_id").asText("").contains(SECURITY_GROUP + "[")) {
                drift.add("aws_security_group_rule." + name + " also changes " + SECURITY_GROUP);
            }
        });
        return drift;
    }

    private Map<String, JsonNode> executorEgressRules() {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        tf.resources("aws_vpc_security_group_egress_rule").forEach((name, r) -> {
            if (r.path("security_group_id").asText("").contains(SECURITY_GROUP + "[")) {
                out.put(name, r);
            }
        });
        return out;
    }

    static Destination destination(JsonNode rule) {
        if (rule.has("cidr_ipv4") || rule.has("cidr_ipv6")) {
            return Destination.CIDR;
        }
        if (rule.has("prefix_list_id")) {
            return Destination.PREFIX_LIST;
        }
        return rule.has("referenced_security_group_id") ? Destination.SECURITY_GROUP : Destination.NONE;
    }

    /** The literal map a resource's for_each iterates (through a conditional on variables), or null. */
    private JsonNode forEachMap(JsonNode resource) {
        Matcher m = LOCAL_REF.matcher(resource.path("for_each").asText(""));
        while (m.find()) {
            JsonNode v = tf.local(m.group(1)).orElse(null);
            if (v != null && v.isObject() && !v.isEmpty()) {
                return v;
            }
        }
        return null;
    }

    /**
     * A case for {@link #plans}: variables, and either the text its failure must show, or the endpoints and how
     * many rules of each destination it must plan.
     */
    record Case(
            String name,
            Map<String, Object> variables,
            String failure,
            Map<String, String> endpoints,
            Map<Destination, Integer> rules)
            implements OfflinePlan.Case {
        static Case fails(String name, Map<String, Object> variables, String failure) {
            return new Case(name, variables, failure, null, null);
        }

        static Case plans(
                String name,
                Map<String, Object> variables,
                Map<String, String> endpoints,
                int cidr,
                int prefixLists,
                int securityGroups) {
            return new Case(
                    name,
                    variables,
                    null,
                    endpoints,
                    Map.of(
                            Destination.CIDR,
                            cidr,
                            Destination.PREFIX_LIST,
                            prefixLists,
                            Destination.SECURITY_GROUP,
                            securityGroups));
        }
    }

    /** An executor service in a VPC, the module creating its endpoints; auth = iam needs nothing more. */
    static final Map<String, Object> BASE = Map.of(
            "auth",
            "iam",
            "create_executor_service",
            true,
            "executor_image",
            "123456789012.dkr.ecr.us-east-1.amazonaws.com/punctual-executor:1",
            "vpc_id",
            "vpc-1",
            "private_subnet_ids",
            List.of("subnet-1", "subnet-2"),
            "vpc_endpoint_route_table_ids",
            List.of("rtb-1"));

    static List<Case> cases(Map<String, String> endpoints) {
        Map<String, String> none = Map.of();
        return List.of(
                Case.plans("the defaults (aws-endpoints, endpoints created)", Map.of(), endpoints, 0, 2, 1),
                Case.plans("internet-https", Map.of("run_egress", "internet-https"), endpoints, 1, 2, 1),
                Case.plans(
                        "the VPC's own endpoints",
                        Map.of(
                                "create_vpc_endpoints",
                                false,
                                "vpc_endpoint_security_group_ids",
                                List.of("sg-1", "sg-2")),
                        none,
                        0,
                        2,
                        2),
                Case.plans(
                        "internet-https without endpoints (through NAT)",
                        Map.of("create_vpc_endpoints", false, "run_egress", "internet-https"),
                        none,
                        1,
                        2,
                        0),
                Case.plans(
                        "internet-https with a public IP",
                        Map.of("run_egress", "internet-https", "executor_assign_public_ip", true),
                        endpoints,
                        1,
                        2,
                        1),
                Case.plans("no executor service (LocalStack)", Map.of("create_executor_service", false), none, 0, 0, 0),
                Case.fails(
                        "endpoints without route tables",
                        Map.of("vpc_endpoint_route_table_ids", List.of()),
                        "vpc_endpoint_route_table_ids is required"),
                Case.fails(
                        "the VPC's own endpoints without their security groups",
                        Map.of("create_vpc_endpoints", false),
                        "vpc_endpoint_security_group_ids is required"),
                Case.fails(
                        "a public IP with aws-endpoints",
                        Map.of("executor_assign_public_ip", true),
                        "set executor_assign_public_ip = false"),
                Case.fails("an unknown run_egress", Map.of("run_egress", "internet"), "run_egress must be"),
                Case.fails(
                        "PUNCTUAL_SANDBOX_NETWORK none on Fargate",
                        Map.of("extra_environment", Map.of("PUNCTUAL_SANDBOX_NETWORK", "none")),
                        "needs CAP_SYS_ADMIN"),
                Case.fails(
                        "PUNCTUAL_SANDBOX_DISK filesystem on Fargate",
                        Map.of("extra_environment", Map.of("PUNCTUAL_SANDBOX_DISK", "filesystem")),
                        "needs CAP_SYS_ADMIN"),
                Case.fails(
                        "PUNCTUAL_WORK_DIR in extra_environment",
                        Map.of("extra_environment", Map.of("PUNCTUAL_WORK_DIR", "/tmp/punctual")),
                        "must not set PUNCTUAL_WORK_DIR"));
    }

    /**
     * Plans each case (or only the named ones) on the offline stand-in of the module: failing ones must fail for
     * the reason named; the others must plan exactly these endpoints and this many egress rules of each kind.
     */
    List<String> plans(Path dir, Map<String, String> endpoints, String... only)
            throws IOException, InterruptedException {
        OfflinePlan plan = new OfflinePlan(tf, dir);
        tf.resources("aws_vpc_endpoint")
                .forEach((name, r) ->
                        plan.output("endpoints:" + name, r.path("for_each").asText("${{}}")));
        Map<String, Destination> kinds = new LinkedHashMap<>();
        executorEgressRules().forEach((name, r) -> {
            kinds.put(name, destination(r));
            String forEach = r.path("for_each").asText(null);
            plan.output(
                    "count:" + name,
                    forEach != null
                            ? "${length(" + unwrap(forEach) + ")}"
                            : r.path("count").asText("1"));
        });
        return plan.planCases(BASE, cases(endpoints), only, (c, where, r, drift) -> {
            Map<String, String> planned = new TreeMap<>();
            tf.resources("aws_vpc_endpoint").keySet().forEach(name -> {
                JsonNode e = r.outputs().get("endpoints:" + name);
                if (e == null) {
                    drift.add(where + ": aws_vpc_endpoint." + name + " cannot be evaluated from variables");
                } else {
                    e.fields()
                            .forEachRemaining(
                                    f -> planned.put(f.getKey(), f.getValue().asText()));
                }
            });
            expect(drift, where + ": VPC endpoints", new TreeMap<>(c.endpoints()), planned);
            Map<Destination, Integer> counts = new TreeMap<>(
                    Map.of(Destination.CIDR, 0, Destination.PREFIX_LIST, 0, Destination.SECURITY_GROUP, 0));
            kinds.forEach((name, kind) -> {
                JsonNode n = r.outputs().get("count:" + name);
                if (n == null) {
                    drift.add(where + ": the count of egress rule " + name + " cannot be evaluated from variables");
                } else {
                    counts.merge(kind, n.asInt(), Integer::sum);
                }
            });
            expect(drift, where + ": egress rules by destination", new TreeMap<>(c.rules()), counts);
        });
    }

    private static String unwrap(String expr) {
        return expr.startsWith("${") && expr.endsWith("}") ? expr.substring(2, expr.length() - 1) : expr;
    }

    private static void expect(List<String> drift, String what, Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            drift.add(what + ": expected " + expected + ", terraform says " + actual);
        }
    }
}
