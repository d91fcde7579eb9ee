package dev.punctual.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Terraform module's files as HashiCorp's own parser reads them (through {@code @cdktf/hcl2json}): blocks are
 * lists of objects, expressions are {@code ${…}} strings. Only what the contract tests need.
 */
final class Terraform {
    static final Path PROJECT = findProject();
    static final Path MODULE = PROJECT.resolve("infra/terraform");
    private static final Path HCL_TOOL = PROJECT.resolve("infra-tests/hcl");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A resource address: type, name, and an index ([0]) or a key (["k"]). */
    private static final Pattern LOCAL_REF = Pattern.compile("local\\.(\\w+)");

    static final Pattern ADDRESS = Pattern.compile("(\\w+)\\.(\\w+)(?:\\[(?:\"([^\"]*)\"|(\\d+))])?");

    private final Path dir;
    private final Map<String, JsonNode> files;

    private Terraform(Path dir, Map<String, JsonNode> files) {
        this.dir = dir;
        this.files = files;
    }

    /** The directory the module was read from. */
    Path dir() {
        return dir;
    }

    static Terraform load(Path dir) throws IOException, InterruptedException {
        ensureParser();
        Process p = new ProcessBuilder("node", HCL_TOOL.resolve("tojson.mjs").toString(), dir.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("parsing " + dir + " failed (exit " + p.exitValue() + ")");
        }
        Map<String, JsonNode> files = new LinkedHashMap<>();
        JSON.readTree(out).fields().forEachRemaining(e -> files.put(e.getKey(), e.getValue()));
        if (files.isEmpty()) {
            throw new IllegalStateException("no .tf files in " + dir);
        }
        return new Terraform(dir, files);
    }

    /** Installs the parser from the lock file on first use, so `mvn verify` needs nothing done by hand. */
    private static synchronized void ensureParser() throws IOException, InterruptedException {
        if (Files.isDirectory(HCL_TOOL.resolve("node_modules/@cdktf/hcl2json"))) {
            return;
        }
        Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund")
                .directory(HCL_TOOL.toFile())
                .redirectErrorStream(true)
                .start();
        String log = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!npm.waitFor(5, TimeUnit.MINUTES) || npm.exitValue() != 0) {
            throw new IllegalStateException("npm ci in " + HCL_TOOL + " failed (Node.js and npm are needed):\n" + log);
        }
    }

    /** Every block {@code resource "<type>" "<name>"}, by name. */
    Map<String, JsonNode> resources(String type) {
        return blocks("resource", type);
    }

    Map<String, JsonNode> data(String type) {
        return blocks("data", type);
    }

    Optional<JsonNode> resource(String type, String name) {
        return Optional.ofNullable(resources(type).get(name));
    }

    /**
     * One instance of a resource or data block: with for_each, one per key it can give (see {@link Instances}), the
     * block read as for that key; otherwise the block itself, key null (with count, it stands for every index).
     */
    record Instance(String type, String name, String key, JsonNode block) {
        String address() {
            return type + "." + name + (key == null ? "" : "[\"" + key + "\"]");
        }
    }

    /** Every instance of every {@code resource "<type>"} block. */
    List<Instance> instances(String type) {
        return instances(type, resources(type));
    }

    /** Every instance of every {@code data "<type>"} block. */
    List<Instance> dataInstances(String type) {
        return instances(type, data(type));
    }

    /**
     * The instance of a resource at an address, if declared: {@code type.name} (no count, no for_each),
     * {@code type.name[0]} (count; any index) or {@code type.name["key"]} (a key its for_each can give).
     */
    Optional<Instance> instanceAt(String address) {
        return at(address, this::instances);
    }

    /** The same for a data block ({@code type.name…}, without {@code data.}). */
    Optional<Instance> dataInstanceAt(String address) {
        return at(address, this::dataInstances);
    }

    private static Optional<Instance> at(String address, java.util.function.Function<String, List<Instance>> ofType) {
        Matcher m = ADDRESS.matcher(address);
        if (!m.matches()) {
            return Optional.empty();
        }
        String key = m.group(3);
        boolean indexed = m.group(4) != null;
        return ofType.apply(m.group(1)).stream()
                .filter(i -> i.name().equals(m.group(2)))
                .filter(i -> key != null
                        ? key.equals(i.key())
                        : i.key() == null && indexed == i.block().has("count"))
                .findFirst();
    }

    private List<Instance> instances(String type, Map<String, JsonNode> blocks) {
        Instances each = new Instances(name -> local(name).orElse(null));
        List<Instance> out = new ArrayList<>();
        blocks.forEach((name, block) -> {
            if (!block.has("for_each")) {
                out.add(new Instance(type, name, null, block));
                return;
            }
            each.entries(block.get("for_each"))
                    .forEach((key, value) ->
                            out.add(new Instance(type, name, key, Instances.resolve(block, key, value))));
        });
        return out;
    }

    /**
     * A block's nested blocks of one kind ({@code statement}, {@code attribute}, …), those its dynamic blocks
     * generate included (see {@link Instances#nested}).
     */
    List<JsonNode> nested(JsonNode block, String name) {
        return new Instances(n -> local(n).orElse(null)).nested(block, name);
    }

    /** A {@code moved} block: its two addresses, as written. */
    record Moved(String from, String to) {}

    List<Moved> moved() {
        List<Moved> out = new ArrayList<>();
        for (JsonNode f : files.values()) {
            f.path("moved")
                    .forEach(m -> out.add(new Moved(
                            Instances.unwrap(m.path("from").asText()),
                            Instances.unwrap(m.path("to").asText()))));
        }
        return out;
    }

    private Map<String, JsonNode> blocks(String kind, String type) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode f : files.values()) {
            f.path(kind)
                    .path(type)
                    .fields()
                    .forEachRemaining(e -> out.put(e.getKey(), e.getValue().get(0)));
        }
        return out;
    }

    /** Every module call, by name. */
    Map<String, JsonNode> modules() {
        return named("module");
    }

    /** Every variable block, by name. */
    Map<String, JsonNode> variables() {
        return named("variable");
    }

    /** Every output block, by name. */
    Map<String, JsonNode> outputs() {
        return named("output");
    }

    /** Every block of a kind that has one label ({@code variable "<name>"}), by name. */
    private Map<String, JsonNode> named(String kind) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode f : files.values()) {
            f.path(kind)
                    .fields()
                    .forEachRemaining(e -> out.put(e.getKey(), e.getValue().get(0)));
        }
        return out;
    }

    /** Every local value, by name (locals blocks of every file merged). */
    Map<String, JsonNode> locals() {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode f : files.values()) {
            for (JsonNode block : f.path("locals")) {
                block.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue()));
            }
        }
        return out;
    }

    /** Every resource block, by type, then name. */
    Map<String, Map<String, JsonNode>> resourcesByType() {
        Map<String, Map<String, JsonNode>> out = new LinkedHashMap<>();
        for (JsonNode f : files.values()) {
            f.path("resource").fieldNames().forEachRemaining(type -> out.computeIfAbsent(type, t -> resources(t)));
        }
        return out;
    }

    /** A variable's default, as JSON. */
    JsonNode variableDefault(String name) {
        for (JsonNode f : files.values()) {
            JsonNode v = f.path("variable").path(name);
            if (!v.isMissingNode()) {
                return v.get(0).path("default");
            }
        }
        throw new AssertionError("variable " + name + " is not declared");
    }

    boolean hasVariable(String name) {
        return files.values().stream().anyMatch(f -> f.path("variable").has(name));
    }

    /** A local value, as JSON (locals blocks of every file merged). */
    Optional<JsonNode> local(String name) {
        for (JsonNode f : files.values()) {
            for (JsonNode block : f.path("locals")) {
                if (block.has(name)) {
                    return Optional.of(block.get(name));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Walks a value as Terraform would follow it: every object field goes to {@code field}, which says whether to
     * look into its value; every expression goes to {@code expression}, and then so does every local it names (each
     * local once).
     */
    void walk(JsonNode node, BiPredicate<String, JsonNode> field, Consumer<String> expression) {
        walk(node, field, expression, new HashSet<>());
    }

    private void walk(
            JsonNode node, BiPredicate<String, JsonNode> field, Consumer<String> expression, Set<String> visited) {
        if (node == null) {
            return;
        }
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if (field.test(e.getKey(), e.getValue())) {
                    walk(e.getValue(), field, expression, visited);
                }
            });
        } else if (node.isArray()) {
            node.forEach(n -> walk(n, field, expression, visited));
        } else if (node.isTextual()) {
            expression.accept(node.asText());
            Matcher locals = LOCAL_REF.matcher(node.asText());
            while (locals.find()) {
                if (visited.add(locals.group(1))) {
                    local(locals.group(1)).ifPresent(v -> walk(v, field, expression, visited));
                }
            }
        }
    }

    /** The raw text of every file, for the few checks that look at expressions. */
    static List<String> texts(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        try (var s = Files.list(dir)) {
            for (Path p : s.filter(x -> x.toString().endsWith(".tf")).sorted().toList()) {
                out.add(Files.readString(p));
            }
        }
        return out;
    }

    private static Path findProject() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("infra-tests"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException(
                    "cannot find the project root from " + Path.of("").toAbsolutePath());
        }
        return p;
    }
}
