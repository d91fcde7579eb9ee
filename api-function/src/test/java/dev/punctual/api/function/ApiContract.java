package dev.punctual.api.function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The OpenAPI document as a client generated from it would read it: its operations, found by method and path, and
 * the JSON schemas of their requests and answers, validated by an independent JSON Schema 2020-12 validator (the
 * dialect of OpenAPI 3.1) with {@code #/components/schemas/...} resolved against the document itself.
 */
final class ApiContract {
    /** Where the validator finds the document: a name only, nothing is fetched. */
    private static final String DOCUMENT = "https://punctual.invalid/v1/openapi.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One operation of the document. */
    record Operation(String method, String template, Pattern path, int literalSegments, String id, JsonNode node) {
        String describe() {
            return id + " (" + method + " " + template + ")";
        }

        /** The operationId, or the route of an operation without one. */
        String key() {
            return id != null ? id : method + " " + template;
        }
    }

    private final JsonNode document;
    private final List<Operation> operations;
    private final SchemaRegistry registry;
    private final Map<String, Schema> schemas = new ConcurrentHashMap<>();

    ApiContract(String documentJson) throws Exception {
        document = JSON.readTree(documentJson);
        List<Operation> ops = new ArrayList<>();
        document.path("paths")
                .properties()
                .forEach(p -> p.getValue()
                        .properties()
                        .forEach(o -> ops.add(operation(p.getKey(), o.getKey(), o.getValue()))));
        // /v1/jobs/batch before /v1/jobs/{id}: a literal segment is the more specific match.
        ops.sort(Comparator.comparingInt(Operation::literalSegments).reversed());
        operations = List.copyOf(ops);
        registry = SchemaRegistry.withDefaultDialect(
                SpecificationVersion.DRAFT_2020_12,
                b -> b.schemas(Map.of(DOCUMENT, documentJson))
                        .schemaRegistryConfig(SchemaRegistryConfig.builder()
                                .formatAssertionsEnabled(true)
                                .build()));
    }

    private static Operation operation(String template, String method, JsonNode node) {
        String[] segments = template.substring(1).split("/");
        StringBuilder regex = new StringBuilder();
        int literal = 0;
        for (String s : segments) {
            if (s.startsWith("{") && s.endsWith("}")) {
                regex.append("/[^/]+");
            } else {
                regex.append('/').append(Pattern.quote(s));
                literal++;
            }
        }
        return new Operation(
                method.toUpperCase(Locale.ROOT),
                template,
                Pattern.compile(regex.toString()),
                literal,
                node.path("operationId").asText(null),
                node);
    }

    List<Operation> operations() {
        return operations;
    }

    Optional<Operation> find(String method, String rawPath) {
        return operations.stream()
                .filter(o ->
                        o.method().equals(method) && o.path().matcher(rawPath).matches())
                .findFirst();
    }

    /** The response the document gives for {@code status}: its own code, else {@code 4XX}/{@code 5XX}, else default. */
    Optional<Map.Entry<String, JsonNode>> response(Operation op, int status) {
        JsonNode responses = op.node().path("responses");
        for (String key : List.of(Integer.toString(status), (status / 100) + "XX", "default")) {
            if (responses.has(key)) {
                return Optional.of(Map.entry(key, responses.get(key)));
            }
        }
        return Optional.empty();
    }

    /** The document's schema for problems, for answers to what is no operation of it. */
    Schema problem() {
        return schema(JSON.createObjectNode().put("$ref", "#/components/schemas/Problem"));
    }

    /**
     * A validator of {@code schema} (a schema object of the document): its references to the document's components
     * are made absolute, so that they resolve wherever the schema stands in the document.
     */
    Schema schema(JsonNode schema) {
        return schemas.computeIfAbsent(schema.toString(), text -> {
            JsonNode absolute = absolute(schema.deepCopy());
            return registry.getSchema(absolute.toString(), InputFormat.JSON);
        });
    }

    private static JsonNode absolute(JsonNode node) {
        if (node instanceof ObjectNode o) {
            JsonNode ref = o.get("$ref");
            if (ref != null && ref.asText().startsWith("#/")) {
                o.put("$ref", DOCUMENT + ref.asText());
            }
            o.properties().forEach(e -> absolute(e.getValue()));
        } else if (node.isArray()) {
            node.forEach(ApiContract::absolute);
        }
        return node;
    }
}
