package dev.punctual.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class YamlTest {
    @Test
    void whatIsWrittenReadsBackTheSameEvenStringsThatLookLikeSomethingElse() throws Exception {
        ObjectNode job =
                ApiClient.JSON.createObjectNode().put("name", "nightly").put("timeoutSeconds", 60);
        List<String> tricky = List.of(
                "0",
                "1.5",
                "1e3",
                "0x1F",
                "true",
                "no",
                "on",
                "null",
                "~",
                "2026-11-29",
                "12:30",
                "a: b",
                "#x",
                "",
                " lead",
                "- dash",
                "[x]",
                "{y}",
                "it's",
                "\"q\"",
                "multi\nline");
        tricky.forEach(job.putArray("args")::add);
        job.putObject("env").put("MODE", "yes").put("N", "007");
        job.putNull("jitter");

        String text = Yaml.write(job);
        JsonNode back = Yaml.read(text);

        assertThat(back).as(text).isEqualTo(job);
        assertThat(text).contains("name: \"nightly\"", "timeoutSeconds: 60");
    }
}
