package dev.punctual.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Core's packages form layers, and a class only uses classes of its own package or of a lower layer: no import
 * runs back up (a value type needed below moves down, rather than the lower package reaching up for it). Checked
 * on the compiled classes, so a fully qualified name in code counts as much as an import.
 */
class LayersTest {
    private static final String CORE = "dev.punctual.core";

    /** Lowest first. Packages of one layer do not use each other either. */
    static final List<Set<String>> LAYERS = List.of(
            Set.of("time", "error", "limits", "metrics"),
            Set.of("schedule", "firing", "config"),
            Set.of("infra"),
            Set.of("job", "run", "binary", "queue", "tenant"),
            Set.of("plan", "notify", "store"),
            Set.of("dispatch", "exec"),
            Set.of("sweep", "service"),
            Set.of(""));

    private static JavaClasses classes;

    @BeforeAll
    static void load() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(CORE);
    }

    static String pkg(JavaClass c) {
        String p = c.getPackageName();
        return p.equals(CORE) ? "" : p.substring(CORE.length() + 1).split("\\.", -1)[0];
    }

    static int layer(String pkg) {
        for (int i = 0; i < LAYERS.size(); i++) {
            if (LAYERS.get(i).contains(pkg)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void everyPackageOfCoreHasALayer() {
        Set<String> unplaced = new TreeSet<>();
        classes.forEach(c -> {
            if (layer(pkg(c)) < 0) {
                unplaced.add(pkg(c));
            }
        });
        assertThat(unplaced).as("packages missing from LAYERS").isEmpty();
    }

    @Test
    void noClassUsesOneOfItsOwnLayerOrAbove() {
        Set<String> upward = new TreeSet<>();
        for (JavaClass c : classes) {
            String from = pkg(c);
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass target = d.getTargetClass();
                if (!target.getPackageName().startsWith(CORE)) {
                    continue;
                }
                String to = pkg(target);
                if (!to.equals(from) && layer(to) >= layer(from)) {
                    upward.add(c.getSimpleName() + " (" + from + ") -> " + target.getSimpleName() + " (" + to + ")");
                }
            }
        }
        assertThat(upward).as("dependencies that run up or across the layers").isEmpty();
    }

    /** Packages whose classes may use DynamoDB's types: the tables' repositories and what they are built on. */
    static final Set<String> DYNAMODB_PACKAGES = Set.of("infra", "job", "run", "binary", "tenant", "store");

    /**
     * A table's protocol is its repository's: above the repositories, code hands domain values, page keys and
     * composed transaction writes ({@code Transactions.Write}) around, never a DynamoDB type. The composition
     * root (the package's top, which builds the clients) and a repository kept beside its only user (the sweeper's
     * watermark) are the exceptions.
     */
    @Test
    void onlyRepositoriesSeeDynamoDb() {
        assertThat(uses(
                        c -> !pkg(c).isEmpty()
                                && !DYNAMODB_PACKAGES.contains(pkg(c))
                                && !c.getSimpleName().endsWith("Repository"),
                        "software.amazon.awssdk.services.dynamodb"))
                .as("DynamoDB types used outside the repositories")
                .isEmpty();
    }

    /** Packages that adapt AWS: the tables' repositories, the queues, the artifact store and what they share. */
    static final Set<String> ADAPTER_PACKAGES = Set.of("infra", "job", "run", "binary", "queue", "tenant", "store");

    /**
     * The AWS SDK stops at the adapters: the services (what the API calls), the dispatcher, the executor, the
     * sweeper and the notices see core's types only (a received message is a {@code Delivery}, a missing binary a
     * false {@code ArtifactStore.download}, a page a {@code PageKey}). Besides the adapters' packages, a table's
     * repository kept beside its only user (the sweeper's watermarks), the event bus's publisher, and the
     * composition root (the package's top, which builds the clients) may use it.
     */
    @Test
    void onlyAdaptersSeeTheAwsSdk() {
        assertThat(uses(
                        c -> !pkg(c).isEmpty()
                                && !ADAPTER_PACKAGES.contains(pkg(c))
                                && !c.getSimpleName().endsWith("Repository")
                                && !c.getSimpleName().equals("EventBusNotices"),
                        "software.amazon.awssdk"))
                .as("AWS SDK types used outside the adapters")
                .isEmpty();
    }

    /** Each use by a class that {@code which} picks of a type whose package starts with {@code prefix}. */
    private static Set<String> uses(Predicate<JavaClass> which, String prefix) {
        Set<String> leaks = new TreeSet<>();
        for (JavaClass c : classes) {
            if (!which.test(c)) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                if (d.getTargetClass().getPackageName().startsWith(prefix)) {
                    leaks.add(c.getSimpleName() + " -> " + d.getTargetClass().getName());
                }
            }
        }
        return leaks;
    }
}
