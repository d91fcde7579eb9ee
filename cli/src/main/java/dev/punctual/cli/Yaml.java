package dev.punctual.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * YAML in and out, made at first use: most calls print tables or JSON, and loading the YAML classes is a good part of
 * a short call's start.
 */
final class Yaml {
    private Yaml() {}

    private static final class Holder {
        static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
                // Every string quoted: Jackson's plain scalars read back as numbers for some (1e3, 0x1F: YamlTest),
                // and args: ["0"] must stay a list of strings.
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));
    }

    static JsonNode read(String text) throws IOException {
        return Holder.YAML.readTree(text);
    }

    static String write(JsonNode node) {
        try {
            return Holder.YAML.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
