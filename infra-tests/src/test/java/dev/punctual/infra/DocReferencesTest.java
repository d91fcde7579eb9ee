package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documents name only what exists: every file, type, route and setting a Markdown document of the project names
 * in a code span is one of the project's ({@link DocReferences}). A rename or a removal that leaves a doc behind
 * fails here, naming the doc and what it names.
 */
class DocReferencesTest {
    @Test
    void everyDocNamesOnlyWhatExists() throws Exception {
        Set<String> paths = new TreeSet<>();
        for (String route : ApiRoutes.routes()) {
            paths.add(route.substring(route.indexOf(' ') + 1));
        }
        paths.add(ApiRoutes.documentRoute().substring(4));
        DocReferences refs = new DocReferences(Terraform.PROJECT, paths);
        assertThat(refs.docs()).contains("README.md", "ARCHITECTURE.md", "bench/README.md");
        List<DocReferences.Stale> stale = new ArrayList<>();
        for (String doc : refs.docs()) {
            stale.addAll(refs.stale(doc));
            stale.addAll(refs.brokenLinks(doc));
        }
        assertThat(stale).as("references to nothing in the project").isEmpty();
    }

    @Test
    void aDocNamingWhatDoesNotExistIsFound(@TempDir Path project) throws Exception {
        Files.createDirectories(project.resolve("core/src/main/java/dev/x/exec"));
        Files.writeString(
                project.resolve("core/src/main/java/dev/x/exec/RunWorker.java"),
                "final class RunWorker { int concurrency() { return 1; } String m() { return \"punctual.runs.started\"; } }");
        Files.writeString(project.resolve("README.md"), """
                Found: `core/.../exec/RunWorker.java`, `exec/RunWorker.java`, `RunWorker.Slot`, `GetItem`,
                `GET /v1/jobs/{jobId}`, `punctual.concurrency`, `punctual.runs.started`, `target/out.md`.
                Stale: `core/.../exec/AttemptRunner.java`, `AttemptRunner`, `exec/JobCheck`, `POST /v1/things`,
                `punctual.no-such-setting`.

                ## A heading's own `words`

                Links: [ok](#a-headings-own-words), [ok](core/src/main/java/dev/x/exec/RunWorker.java),
                [ok](https://example.com/x), [no such heading](#nowhere), [no such file](docs/none.md).
                """);
        DocReferences refs = new DocReferences(project, Set.of("/v1/jobs/{id}"));
        assertThat(refs.stale("README.md"))
                .extracting(DocReferences.Stale::reference)
                .containsExactly(
                        "core/.../exec/AttemptRunner.java",
                        "AttemptRunner",
                        "exec/JobCheck",
                        "POST /v1/things",
                        "punctual.no-such-setting");
        assertThat(refs.brokenLinks("README.md"))
                .extracting(DocReferences.Stale::reference)
                .containsExactly("#nowhere", "docs/none.md");
    }
}
