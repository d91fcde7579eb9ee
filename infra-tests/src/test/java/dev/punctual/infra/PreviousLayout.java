package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;

/**
 * A deployment made before the Lambdas and roles were declared with for_each ({@code src/test/terraform/
 * previous-layout}: its state, the variables it was made with, and what its offline plan stands in for). An upgrade
 * must keep every resource it has: each address of its state is still declared, or a {@code moved} block leads
 * to one that is; and Terraform, planning the module against that state, destroys and creates nothing of it. Each
 * check returns the drift it finds.
 */
final class PreviousLayout {
    static final Path DIR = Terraform.PROJECT.resolve("infra-tests/src/test/terraform/previous-layout");
    private static final ObjectMapper JSON = new ObjectMapper();

    private PreviousLayout() {}

    /**
     * Resources AWS never updates, only registers anew: any change of the executor's container (its image, its
     * environment, its health check) is a new task definition revision, which the service then rolls its tasks to.
     * Replacing one loses nothing; deleting one without a replacement would still be drift.
     */
    static final Set<String> REVISIONED = Set.of("aws_ecs_task_definition");

    /** Every resource instance of the previous layout's state, by address ({@code type.name[0]}, {@code ["k"]}). */
    static List<String> addresses() throws IOException {
        JsonNode state = JSON.readTree(DIR.resolve("previous-layout.tfstate").toFile());
        List<String> out = new ArrayList<>();
        for (JsonNode r : state.path("resources")) {
            if (!r.path("mode").asText().equals("managed")) {
                continue;
            }
            for (JsonNode i : r.path("instances")) {
                JsonNode key = i.path("index_key");
                String index = key.isMissingNode()
                        ? ""
                        : key.isNumber() ? "[" + key.asInt() + "]" : "[\"" + key.asText() + "\"]";
                out.add(r.path("type").asText() + "." + r.path("name").asText() + index);
            }
        }
        return out;
    }

    /**
     * Each address of the previous layout is declared, or the module's {@code moved} blocks (followed as Terraform
     * does: an instance's own block, else its resource's) lead from it to an instance the module declares.
     */
    static List<String> declaredOrMoved(Terraform tf) throws IOException {
        List<String> drift = new ArrayList<>();
        List<Terraform.Moved> moved = tf.moved();
        Map<String, Integer> targets = new HashMap<>();
        moved.forEach(m -> targets.merge(m.to(), 1, Integer::sum));
        targets.forEach((to, n) -> {
            if (n > 1) {
                drift.add(n + " moved blocks lead to " + to);
            }
        });
        for (Terraform.Moved m : moved) {
            if (declared(tf, m.from())) {
                drift.add("moved from " + m.from() + ", which the module still declares");
            }
        }
        List<String> addresses = addresses();
        if (addresses.isEmpty()) {
            drift.add("the previous layout's state holds no resources");
        }
        for (String address : addresses) {
            String now = follow(address, moved);
            if (!declared(tf, now)) {
                drift.add(
                        now.equals(address)
                                ? address + " of the previous layout is neither declared nor moved"
                                : address + " of the previous layout is moved to " + now
                                        + ", which the module does not declare");
            }
        }
        return drift;
    }

    /**
     * Whether the module declares an instance. A for_each whose keys only a plan can tell (what a data source reads)
     * declares any key here; {@link #plan} checks those.
     */
    private static boolean declared(Terraform tf, String address) {
        try {
            return tf.instanceAt(address).isPresent();
        } catch (IllegalStateException keysKnownOnlyToAPlan) {
            Matcher m = Terraform.ADDRESS.matcher(address);
            return m.matches()
                    && m.group(3) != null
                    && tf.resources(m.group(1))
                            .getOrDefault(m.group(2), MissingNode.getInstance())
                            .has("for_each");
        }
    }

    /** Where the moved blocks take an address (at most one step per block, as chains of them go). */
    static String follow(String address, List<Terraform.Moved> moved) {
        String at = address;
        for (int step = 0; step < moved.size(); step++) {
            String next = null;
            for (Terraform.Moved m : moved) {
                if (m.from().equals(at)) {
                    next = m.to();
                } else if (next == null
                        && at.startsWith(m.from() + "[")
                        && !m.from().contains("[")
                        && !m.to().contains("[")) {
                    next = m.to() + at.substring(m.from().length());
                }
            }
            if (next == null) {
                return at;
            }
            at = next;
        }
        return at;
    }

    /**
     * Plans a copy of the module (in {@code module}, which this changes) against the previous layout's state, with
     * the real provider from {@code mirror} and no AWS account, and returns every instance of that state the plan
     * would destroy, replace or not account for.
     */
    static List<String> plan(Path module, Path mirror) throws IOException, InterruptedException {
        Files.copy(DIR.resolve("offline_override.tf"), module.resolve("offline_override.tf"));
        Files.copy(DIR.resolve("previous-layout.tfvars"), module.resolve("previous-layout.tfvars"));
        Files.copy(DIR.resolve("previous-layout.tfstate"), module.resolve("terraform.tfstate"));
        // The packages the variables name, as they were when the state was made.
        Files.writeString(module.resolve("function.zip"), "x\n");
        OfflinePlan.Run init = OfflinePlan.terraform(
                module, "init", "-input=false", "-no-color", "-backend=false", "-plugin-dir=" + mirror);
        if (init.exit() != 0) {
            return List.of("terraform init failed:\n" + init.output());
        }
        OfflinePlan.Run plan = OfflinePlan.terraform(
                module,
                "plan",
                "-input=false",
                "-no-color",
                "-lock=false",
                "-refresh=false",
                "-var-file=previous-layout.tfvars",
                "-out=upgrade.tfplan");
        if (plan.exit() != 0) {
            return List.of("terraform plan against the previous layout's state failed:\n" + plan.output());
        }
        OfflinePlan.Run show = OfflinePlan.terraform(module, "show", "-json", "-no-color", "upgrade.tfplan");
        if (show.exit() != 0) {
            return List.of("terraform show failed:\n" + show.output());
        }
        Map<String, JsonNode> byPrevious = new HashMap<>();
        for (JsonNode c : JSON.readTree(show.stdout()).path("resource_changes")) {
            if (c.path("mode").asText().equals("managed")) {
                byPrevious.put(
                        c.path("previous_address").asText(c.path("address").asText()), c);
            }
        }
        List<String> drift = new ArrayList<>();
        for (String address : addresses()) {
            JsonNode c = byPrevious.get(address);
            if (c == null) {
                drift.add(address + " of the previous layout is not in the plan");
                continue;
            }
            List<String> actions = new ArrayList<>();
            c.path("change").path("actions").forEach(a -> actions.add(a.asText()));
            if (REVISIONED.contains(c.path("type").asText())
                    && c.path("action_reason").asText().equals("replace_because_cannot_update")) {
                continue;
            }
            if (actions.contains("delete") || actions.contains("create")) {
                drift.add(address + " of the previous layout would be " + String.join(" and ", actions)
                        + (c.path("address").asText().equals(address)
                                ? ""
                                : " as " + c.path("address").asText())
                        + " (" + c.path("action_reason").asText("no reason given") + ")");
            }
        }
        return drift;
    }
}
