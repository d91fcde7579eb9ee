package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.punctual.core.metrics.EmfMeterRegistry;
import dev.punctual.core.metrics.Meters;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alarms and the dashboard against the meters the code records ({@link Meters}, published by
 * {@link EmfMeterRegistry}): a meter renamed in the code fails here, rather than leaving an alarm on a metric nobody
 * publishes any more, which CloudWatch would show as "insufficient data" and never fire.
 */
class MetricsContractTest {
    private static final Pattern METER_NAME = Pattern.compile("\"(punctual\\.[a-z_.]+)\"");
    private static final Pattern METRIC_NAME = Pattern.compile("\"metric_name\":\"([^\"]+)\"");

    static Terraform tf;

    @BeforeAll
    static void load() throws Exception {
        tf = Terraform.load(Terraform.MODULE);
    }

    /** Every meter name {@link Meters} declares. */
    static Set<String> meters() throws IllegalAccessException {
        Set<String> names = new TreeSet<>();
        for (Field f : Meters.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers())
                    && f.getType() == String.class
                    && ((String) f.get(null)).startsWith("punctual.")) {
                names.add((String) f.get(null));
            }
        }
        return names;
    }

    private static String text(String file) throws IOException {
        return Files.readString(Terraform.MODULE.resolve(file));
    }

    private static Set<String> namedIn(String text) {
        Set<String> found = new TreeSet<>();
        Matcher m = METER_NAME.matcher(text);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    @Test
    void everyPunctualMetricTheModuleNamesIsOneTheCodeRecords() throws Exception {
        Set<String> named = new TreeSet<>();
        try (Stream<Path> files = Files.list(Terraform.MODULE)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".tf")).toList()) {
                named.addAll(namedIn(Files.readString(f)));
            }
        }
        assertThat(named).isNotEmpty();
        assertThat(meters()).containsAll(named);
    }

    @Test
    void alarmsWatchDeadRunsDeadLettersLatenessConflictsRetriesAndFullSlots() {
        List<String> alarms = new ArrayList<>();
        Set<String> metrics = new TreeSet<>();
        for (Terraform.Instance alarm : tf.instances("aws_cloudwatch_metric_alarm")) {
            String block = alarm.block().toString();
            Matcher m = METRIC_NAME.matcher(block);
            while (m.find()) {
                metrics.add(m.group(1));
                if (m.group(1).startsWith("punctual.")) {
                    alarms.add(block);
                }
            }
        }
        assertThat(metrics)
                .contains(
                        Meters.RUNS,
                        Meters.START_LATENESS,
                        Meters.DEAD_LETTERS,
                        Meters.CLAIM_CONFLICTS,
                        Meters.RETRIES,
                        Meters.SLOTS_BUSY,
                        Meters.SLOTS);
        // Every meter goes out in one namespace, with the deployment's prefix as a dimension (and the meter's tags).
        assertThat(alarms)
                .allSatisfy(a -> assertThat(a)
                        .contains("\"namespace\":\"" + EmfMeterRegistry.NAMESPACE + "\"")
                        .contains("\"" + EmfMeterRegistry.DIMENSION + "\":\"${var.name_prefix}\""));
        assertThat(alarms)
                .as("the DEAD runs alarm counts runs tagged state DEAD")
                .anyMatch(a -> a.contains("\"metric_name\":\"" + Meters.RUNS + "\"")
                        && a.contains("\"" + Meters.STATE + "\":\"DEAD\""));
    }

    @Test
    void everyMeterIsPublishedWithItsDimensions() throws Exception {
        Map<String, Set<Set<String>>> published = MetricsContract.published();
        assertThat(published.keySet()).containsExactlyInAnyOrderElementsOf(meters());
        // By lane, and all lanes together (without the lane).
        assertThat(published.get(Meters.QUEUE_MESSAGES))
                .containsExactlyInAnyOrder(
                        Set.of(EmfMeterRegistry.DIMENSION, Meters.LANE, Meters.STATE),
                        Set.of(EmfMeterRegistry.DIMENSION, Meters.STATE));
        assertThat(published.get(Meters.START_LATENESS))
                .containsExactlyInAnyOrder(
                        Set.of(EmfMeterRegistry.DIMENSION, Meters.LANE), Set.of(EmfMeterRegistry.DIMENSION));
        assertThat(published.get(Meters.RETRIES)).containsExactly(Set.of(EmfMeterRegistry.DIMENSION));
    }

    @Test
    void alarmsAndTheDashboardNameEachMetricWithTheDimensionsTheCodePublishes() throws Exception {
        assertThat(new MetricsContract(tf).dimensions()).isEmpty();
    }

    @Test
    void theDashboardGraphsEveryLanesQueueInEveryState(@TempDir Path dir) throws Exception {
        assumeTrue(OfflinePlan.available(), "terraform is not installed: offline plans skipped");
        assertThat(new MetricsContract(tf).queueWidgets(dir)).isEmpty();
    }

    @Test
    void theDashboardGraphsEveryMeter() throws Exception {
        assertThat(tf.resources("aws_cloudwatch_dashboard")).containsKey("this");
        String dashboard = text("dashboard.tf");
        assertThat(namedIn(dashboard)).containsExactlyInAnyOrderElementsOf(meters());
        for (String state : Meters.QUEUE_STATES) {
            assertThat(dashboard).contains("\"" + state + "\"");
        }
    }
}
