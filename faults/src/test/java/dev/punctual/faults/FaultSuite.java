package dev.punctual.faults;

import dev.punctual.emulators.EmbeddedAws;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * What every scenario class ({@link FaultScenarios}) shares: the emulators, the work directory and the
 * {@link FaultReport}. The emulators take seconds to start, so they start once for the whole suite, not once a class:
 * all of it lives in the root store of JUnit's extension context, which closes it after the last class has run; then
 * the emulators stop and the report is published.
 */
final class FaultSuite implements TestInstancePostProcessor {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(FaultSuite.class);
    /** Strong references, so the levels set on these loggers stick. */
    private static final List<Logger> QUIET = new ArrayList<>();

    @Override
    public void postProcessTestInstance(Object testInstance, ExtensionContext context) {
        ((FaultScenarios) testInstance).suite =
                context.getRoot().getStore(NAMESPACE).computeIfAbsent(Shared.class, k -> start(), Shared.class);
    }

    private static Shared start() {
        for (String name : List.of("dev.punctual", "software.amazon", "org.elasticmq", "com.amazonaws")) {
            Logger l = Logger.getLogger(name);
            l.setLevel(Level.SEVERE);
            QUIET.add(l);
        }
        try {
            EmbeddedAws aws = EmbeddedAws.startInMemory();
            Path root = Files.createDirectories(reportDir().resolve("faults-work"));
            return new Shared(aws, root, new FaultReport());
        } catch (Exception e) {
            throw new IllegalStateException("the fault suite could not start its emulators", e);
        }
    }

    static Path reportDir() {
        return Path.of(System.getProperty("faults.reportDir", "target"));
    }

    /** The emulators in memory, each scenario on tables, queue and bucket of its own; and the report. */
    record Shared(EmbeddedAws aws, Path root, FaultReport report) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            aws.close();
            report.publish(reportDir());
        }
    }
}
