package dev.punctual.api.function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.punctual.wiring.testing.EmulatorsTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The conformance check ({@link Conformance}) looked: after every other test of this application has run (it is
 * ordered last among them by {@link OrderThenName}), the answers checked against the document include a success of
 * every operation and a problem, and how many were checked is logged. On a partial run (a {@code -Dtest} that leaves
 * some of those tests out) there is nothing to hold it to: it is skipped, saying which did not run. Tests with a
 * profile of their own run in another application, whose answers are checked all the same but counted there.
 */
@QuarkusTest
@WithTestResource(EmulatorsTestResource.class)
@Order(Integer.MAX_VALUE)
class ConformanceCoverageLambdaTest {
    private static final Logger LOG = Logger.getLogger(ConformanceCoverageLambdaTest.class);

    @Test
    void everyOperationsAnswersWereCheckedAgainstTheDocument() throws Exception {
        Set<String> missing = sharingThisApplication();
        Gateway.testClasses().forEach(c -> missing.remove(c.getName()));
        assumeTrue(missing.isEmpty(), "a partial run: coverage is asserted when these run too: " + missing);

        ApiContract contract = Conformance.contract();
        assertThat(contract).as("an answer was checked").isNotNull();
        Map<String, Set<String>> seen = Conformance.seen();
        LOG.infof(
                "Conformance: %d answers checked against the OpenAPI document (and %d to requests outside it, not"
                        + " checked: the document itself, health, the dashboard), %d accepted request bodies against"
                        + " their schemas; by operation: %s",
                Conformance.checked(), Conformance.outside(), Conformance.requests(), seen);
        for (ApiContract.Operation op : contract.operations()) {
            assertThat(seen.getOrDefault(op.key(), Set.of()))
                    .as(op.describe() + ": a success was checked")
                    .anyMatch(status -> status.startsWith("2"));
        }
        assertThat(seen.values().stream().flatMap(Set::stream))
                .as("a problem was checked")
                .anyMatch(status -> status.startsWith("4"));
    }

    /** The test classes of this module that share this one's application: those without a profile of their own. */
    private static Set<String> sharingThisApplication() throws Exception {
        Class<?> me = ConformanceCoverageLambdaTest.class;
        Path root =
                Path.of(me.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path dir = root.resolve(me.getPackageName().replace('.', '/'));
        Set<String> out = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (String file : files.map(p -> p.getFileName().toString())
                    .filter(f -> f.endsWith("LambdaTest.class"))
                    .toList()) {
                String name = me.getPackageName() + "." + file.substring(0, file.length() - ".class".length());
                Class<?> c = Class.forName(name, false, me.getClassLoader());
                if (c != me && !c.isAnnotationPresent(TestProfile.class)) {
                    out.add(name);
                }
            }
        }
        assertThat(out).as("test classes found beside " + me.getSimpleName()).isNotEmpty();
        return out;
    }
}
