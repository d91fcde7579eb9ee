package dev.punctual.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MarkdownTableTest {
    @Test
    void padsColumnsAlignsNumbersRightAndEscapesPipes() {
        String t = new MarkdownTable("path", "runs/s>")
                .row("bare", "1000")
                .row("a|b", "9")
                .render();
        assertThat(t).isEqualTo("""
                | path | runs/s |
                | ---- | -----: |
                | bare |   1000 |
                | a\\|b |      9 |
                """);
    }
}
