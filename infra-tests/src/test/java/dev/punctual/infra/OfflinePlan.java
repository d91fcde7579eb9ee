package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs real {@code terraform plan} on the part of a module that needs no provider, so the rules between variables
 * are evaluated by Terraform itself rather than guessed from their text. The stand-in configuration (Terraform's
 * JSON syntax) holds every variable with its validations, every local that depends on variables only, and for each
 * resource with preconditions a {@code terraform_data} with the same count (or for_each keys) and the preconditions
 * that depend on variables only (and each.key); the expressions asked for become outputs. {@code terraform_data}
 * is built into Terraform, so {@code init} and {@code plan} need no download.
 */
final class OfflinePlan {
    /** A plan: whether it succeeded, Terraform's error text, and the outputs asked for (absent: not evaluable). */
    record Result(boolean ok, String errors, Map<String, JsonNode> outputs) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern REFERENCE =
            Pattern.compile("(?<![\\w.\\]\"-])([a-z_][a-z0-9_]*)\\.([a-z_][a-z0-9_]*)");
    private static final Pattern WHOLE_LOCAL = Pattern.compile("^\\$\\{local\\.(\\w+)}$");
    private static final Set<String> OTHER_ROOTS =
            Set.of("data", "module", "path", "each", "count", "self", "terraform");

    private final Terraform tf;
    private final Map<String, Map<String, JsonNode>> resources;
    private final Path dir;
    private final Set<String> evaluableLocals = new HashSet<>();
    private final Map<String, String> outputNames = new LinkedHashMap<>();
    private final Map<String, JsonNode> outputs = new LinkedHashMap<>();
    private boolean initialized;
    private int plans;

    OfflinePlan(Terraform tf, Path dir) {
        this.tf = tf;
        this.resources = tf.resourcesByType();
        this.dir = dir;
        findEvaluableLocals();
    }

    /**
     * Asks for an expression's value in every plan ({@code "${…}"} as the parser gives it, or a literal). An
     * expression that references anything but variables and evaluable locals is left out of the results.
     */
    OfflinePlan output(String name, String expression) {
        outputs.put(name, JsonNodeFactory.instance.textNode(expression));
        return this;
    }

    boolean isEvaluableLocal(String name) {
        return evaluableLocals.contains(name);
    }

    private void init() throws IOException, InterruptedException {
        Files.createDirectories(dir);
        ObjectNode config = JsonNodeFactory.instance.objectNode();
        variables(config.putObject("variable"));
        ObjectNode locals = config.putObject("locals");
        tf.locals().forEach((name, value) -> {
            if (evaluableLocals.contains(name)) {
                locals.set(name, value);
            }
        });
        standIns(config.putObject("resource").putObject("terraform_data"));
        ObjectNode out = config.putObject("output");
        outputs.forEach((name, expr) -> {
            if (evaluable(expr)) {
                String id = "o" + outputNames.size();
                outputNames.put(id, name);
                out.putObject(id).set("value", expr);
            }
        });
        Files.writeString(
                dir.resolve("main.tf.json"),
                JSON.writerWithDefaultPrettyPrinter().writeValueAsString(config));
        Run init = terraform("init", "-input=false", "-no-color", "-backend=false");
        if (init.exit() != 0) {
            throw new IllegalStateException("terraform init of the offline stand-in failed:\n" + init.output());
        }
        initialized = true;
    }

    /** Plans with these variables (as {@code -var-file} JSON). */
    Result plan(Map<String, Object> variables) throws IOException, InterruptedException {
        if (!initialized) {
            init();
        }
        int n = ++plans;
        Path vars = dir.resolve("case" + n + ".tfvars.json");
        Files.writeString(vars, JSON.writeValueAsString(variables));
        String planFile = "case" + n + ".tfplan";
        Run plan = terraform(
                "plan",
                "-input=false",
                "-no-color",
                "-lock=false",
                "-refresh=false",
                "-var-file=" + vars.getFileName(),
                "-out=" + planFile);
        if (plan.exit() != 0) {
            return new Result(false, plan.output(), Map.of());
        }
        Run show = terraform("show", "-json", "-no-color", planFile);
        if (show.exit() != 0) {
            throw new IllegalStateException("terraform show failed:\n" + show.output());
        }
        Map<String, JsonNode> values = new LinkedHashMap<>();
        JsonNode planned = JSON.readTree(show.stdout()).path("planned_values").path("outputs");
        outputNames.forEach((id, name) -> values.put(name, planned.path(id).path("value")));
        return new Result(true, "", values);
    }

    /** A case of a contract's plans: its variables, and the text its failure must show (null: it must plan). */
    interface Case {
        String name();

        Map<String, Object> variables();

        String failure();
    }

    /** What a contract checks in a case that planned, as it had to. */
    interface Check<C extends Case> {
        void check(C c, String where, Result planned, List<String> drift);
    }

    /**
     * Plans every case (only the named ones, when any are named), its variables over {@code base}. A case with a
     * failure text must fail and mention it (whitespace collapsed: Terraform wraps long messages); the others must
     * plan, and {@code check} says what else they must give. Returns the drift found.
     */
    <C extends Case> List<String> planCases(Map<String, Object> base, List<C> cases, String[] only, Check<C> check)
            throws IOException, InterruptedException {
        List<String> drift = new ArrayList<>();
        for (C c : cases) {
            if (only.length > 0 && !List.of(only).contains(c.name())) {
                continue;
            }
            Map<String, Object> vars = new LinkedHashMap<>(base);
            vars.putAll(c.variables());
            String where = "plan with " + c.name() + " " + c.variables();
            Result r = plan(vars);
            if (c.failure() != null) {
                if (r.ok()) {
                    drift.add(where + ": succeeded; it must fail (" + c.failure() + ")");
                } else if (!r.errors().replaceAll("\\s+", " ").contains(c.failure())) {
                    drift.add(where + ": failed, but not about " + c.failure() + ":\n" + r.errors());
                }
            } else if (!r.ok()) {
                drift.add(where + ": failed:\n" + r.errors());
            } else {
                check.check(c, where, r, drift);
            }
        }
        return drift;
    }

    /** Variables in JSON syntax: a type is a type expression in a string, not an interpolation. */
    private void variables(ObjectNode into) {
        tf.variables().forEach((name, block) -> {
            ObjectNode v = block.deepCopy();
            String type = v.path("type").asText("");
            if (type.startsWith("${") && type.endsWith("}")) {
                v.put("type", type.substring(2, type.length() - 1));
            }
            into.set(name, v);
        });
    }

    private void standIns(ObjectNode into) {
        resources.forEach((type, byName) -> byName.forEach((name, block) -> {
            JsonNode forEach = forEach(block);
            if (block.has("for_each") && forEach == null) {
                return;
            }
            List<JsonNode> kept = new ArrayList<>();
            for (JsonNode lifecycle : block.path("lifecycle")) {
                for (JsonNode pre : lifecycle.path("precondition")) {
                    if (evaluable(pre, forEach != null)) {
                        kept.add(pre);
                    }
                }
            }
            JsonNode count = block.get("count");
            if (kept.isEmpty() || (count != null && !evaluable(count))) {
                return;
            }
            ObjectNode r = into.putObject(type + "__" + name);
            if (count != null) {
                r.set("count", count);
            }
            if (forEach != null) {
                r.set("for_each", forEach);
            }
            r.putObject("lifecycle").putArray("precondition").addAll(kept);
        }));
    }

    /**
     * What a stand-in iterates for a block with for_each: the for_each itself when it depends on variables only,
     * else its keys when they are those of a literal map in a local (the values may not be evaluable; a stand-in
     * only needs each.key); null when neither (the block gets no stand-in).
     */
    private JsonNode forEach(JsonNode block) {
        JsonNode forEach = block.get("for_each");
        if (forEach == null) {
            return null;
        }
        if (evaluable(forEach)) {
            return forEach;
        }
        Matcher local = WHOLE_LOCAL.matcher(forEach.asText(""));
        JsonNode map = local.matches() ? tf.local(local.group(1)).orElse(null) : null;
        if (map == null || !map.isObject()) {
            return null;
        }
        StringBuilder keys = new StringBuilder("${toset([");
        map.fieldNames()
                .forEachRemaining(
                        k -> keys.append(JsonNodeFactory.instance.textNode(k)).append(", "));
        return JsonNodeFactory.instance.textNode(keys.append("])}").toString());
    }

    /** Locals that reference only variables and other such locals (a fixpoint). */
    private void findEvaluableLocals() {
        Map<String, JsonNode> all = tf.locals();
        boolean grew = true;
        while (grew) {
            grew = false;
            for (var e : all.entrySet()) {
                if (!evaluableLocals.contains(e.getKey()) && evaluable(e.getValue())) {
                    evaluableLocals.add(e.getKey());
                    grew = true;
                }
            }
        }
    }

    /** Whether every reference in an expression is to a variable or to an evaluable local. */
    boolean evaluable(JsonNode node) {
        return evaluable(node, false);
    }

    /** The same, also allowing {@code each.key} (in a stand-in that has the block's keys). */
    private boolean evaluable(JsonNode node, boolean eachKey) {
        if (node.isTextual()) {
            Matcher m = REFERENCE.matcher(node.asText());
            while (m.find()) {
                String root = m.group(1);
                if (root.equals("local") && !evaluableLocals.contains(m.group(2))) {
                    return false;
                }
                if (eachKey && root.equals("each") && m.group(2).equals("key")) {
                    continue;
                }
                if (OTHER_ROOTS.contains(root) || resources.containsKey(root)) {
                    return false;
                }
            }
            return true;
        }
        for (JsonNode child : node) {
            if (!evaluable(child, eachKey)) {
                return false;
            }
        }
        return true;
    }

    /** A terraform command's exit code, its stdout, and stdout and stderr together. */
    record Run(int exit, String stdout, String output) {}

    private Run terraform(String... args) throws IOException, InterruptedException {
        return terraform(dir, args);
    }

    /** Runs the terraform CLI in {@code dir}, with no checkpoint calls and no inherited TF_CLI_ARGS. */
    static Run terraform(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("terraform");
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().put("CHECKPOINT_DISABLE", "1");
        pb.environment().put("TF_IN_AUTOMATION", "1");
        pb.environment().remove("TF_DATA_DIR");
        pb.environment().remove("TF_CLI_ARGS");
        Path stderr = Files.createTempFile("terraform-stderr", ".txt");
        pb.redirectError(stderr.toFile());
        try {
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("terraform " + String.join(" ", args) + " timed out");
            }
            return new Run(p.exitValue(), out, out + Files.readString(stderr));
        } finally {
            Files.deleteIfExists(stderr);
        }
    }

    /** Whether the terraform CLI is on the PATH. */
    static boolean available() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, "terraform"))) {
                return true;
            }
        }
        return false;
    }
}
