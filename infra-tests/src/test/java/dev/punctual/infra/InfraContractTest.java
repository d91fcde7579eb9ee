package dev.punctual.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.punctual.api.dashboard.Dashboard;
import dev.punctual.core.config.Settings;
import dev.punctual.core.config.Sweep;
import dev.punctual.core.firing.Priority;
import dev.punctual.core.infra.Resources;
import dev.punctual.core.metrics.EmfMeterRegistry;
import dev.punctual.core.metrics.Meters;
import dev.punctual.core.queue.RunQueues;
import io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * infra/terraform against the code: names, keys, indexes and TTL of the tables; every lane's queue, its redrive and
 * its visibility against the lease; each component's environment, handler and runtime; the API routes; the sweep
 * rate; least-privilege IAM derived from the compiled adapters; alarms, every lane's among them. Fails loudly,
 * listing every drift.
 */
class InfraContractTest {
    static Terraform tf;
    static Contract contract;

    @BeforeAll
    static void load() throws Exception {
        tf = Terraform.load(Terraform.MODULE);
        contract = new Contract(tf);
    }

    @Test
    void tablesMatchTheCodesDefinition() {
        assertThat(contract.tables()).isEmpty();
    }

    @Test
    void terraformsLanesAreTheCodes() {
        assertThat(contract.lanes()).isEmpty();
    }

    @Test
    void everyLanesQueueRedrivesToItsOwnDeadLetterQueueAndHidesMessagesForOneLease() {
        assertThat(contract.queues()).isEmpty();
    }

    /**
     * Terraform passes the normal lane's queue URL alone; the code makes each other lane's from it (RunQueues), which
     * must be the URL of the queue Terraform creates for that lane (an SQS URL ends with the queue's name).
     */
    @Test
    void theLanesUrlsTheCodeMakesFromTheQueueUrlAreThoseOfTheLanesQueues() {
        assertThat(contract.queueUrl(Components.environments(tf))).isEmpty();
        Resources resources = new Resources(Settings.defaults());
        String account = "https://sqs.us-east-1.amazonaws.com/123456789012/";
        String given = account + resources.runQueue(Priority.NORMAL).name();
        RunQueues queues = new RunQueues(null, resources, given, Duration.ZERO);
        for (Priority lane : Priority.values()) {
            String name = resources.runQueue(lane).name();
            assertThat(contract.queue(name))
                    .as("the %s lane's queue", lane.label())
                    .isPresent();
            assertThat(queues.lane(lane).url())
                    .as("the %s lane's URL", lane.label())
                    .isEqualTo(account + name);
        }
    }

    @Test
    void everyComponentGetsTheVariablesTheCodeReadsAndNoOthers() {
        assertThat(contract.environment(Components.environments(tf))).isEmpty();
    }

    @Test
    void eachRoleAllowsExactlyTheActionsItsCodeCalls() throws Exception {
        List<String> drift = new ArrayList<>();
        for (var c : Components.ALL) {
            Set<CodeActions.Permission> needed = new CodeActions().derive(c.entryClasses(), c.entryMethods());
            assertThat(needed).as("%s derives some AWS actions", c.name()).isNotEmpty();
            drift.addAll(contract.permissions(c.policyDocument(), needed));
        }
        assertThat(drift).isEmpty();
    }

    @Test
    void noPolicyGrantsAWildcardAction() {
        assertThat(contract.noWildcardActions()).isEmpty();
    }

    @Test
    void theHttpApiRoutesEveryEndpointTheApiServesAndNothingElse() throws Exception {
        Set<String> terraform = new TreeSet<>();
        tf.resources("aws_apigatewayv2_route").forEach((name, route) -> {
            if (!name.equals(AuthContract.DASHBOARD)) {
                terraform.addAll(routeKeys(route));
            }
        });
        Set<String> served = new TreeSet<>(ApiRoutes.routes());
        // The OpenAPI document is a Vert.x route, not a resource: routed behind the same authorizer.
        served.add(ApiRoutes.documentRoute());
        assertThat(terraform).isEqualTo(served);
    }

    @Test
    void theDashboardsRoutesLeadToFilesTheApiModuleHas() throws Exception {
        JsonNode dashboard = tf.resources("aws_apigatewayv2_route").get(AuthContract.DASHBOARD);
        assertThat(dashboard).as("aws_apigatewayv2_route.dashboard").isNotNull();
        assertThat(routeKeys(dashboard)).containsExactlyInAnyOrder("GET /ui", "GET /ui/{proxy+}");
        // What Quarkus serves at /ui/ (from the api module's jar, in the Lambda's package as on the local runner).
        assertThat(Dashboard.class.getResource("/META-INF/resources/ui/index.html"))
                .isNotNull();
        assertThat(Dashboard.PATH).isEqualTo("/ui/");
    }

    private Set<String> routeKeys(JsonNode route) {
        String key = route.path("route_key").asText();
        return key.startsWith("${each.") ? new TreeSet<>(Components.forEachValues(tf, route)) : Set.of(key);
    }

    @Test
    void lambdasUseQuarkusHandlerAndTheJavaRuntimeTheBuildTargets() throws Exception {
        String handler = QuarkusStreamHandler.class.getName() + "::handleRequest";
        int release = Components.classFileRelease(Settings.class);
        for (String name : Components.LAMBDAS) {
            JsonNode fn = Components.lambdaFunction(tf, name).block();
            assertThat(fn.path("handler").asText()).as(name + " handler").contains(handler);
            assertThat(fn.path("runtime").asText())
                    .as(name + " runtime")
                    .contains("java" + release)
                    .contains("provided.al2023");
        }
    }

    @Test
    void eventBridgeFiresTheSweeperAtTheSweepPeriod() {
        long minutes = Sweep.DEFAULT_PERIOD.toMinutes();
        String rate = "rate(" + minutes + (minutes == 1 ? " minute)" : " minutes)");
        assertThat(tf.resources("aws_cloudwatch_event_rule").values())
                .extracting(r -> r.path("schedule_expression").asText())
                .contains(rate);
    }

    @Test
    void alarmsWatchEveryLanesDeadLettersAndQueueAgeSweeperErrorsAndLateness() {
        List<JsonNode> alarms = tf.instances("aws_cloudwatch_metric_alarm").stream()
                .map(Terraform.Instance::block)
                .toList();
        Set<String> metrics = new TreeSet<>();
        for (JsonNode alarm : alarms) {
            metrics.add(alarm.path("namespace").asText() + "/"
                    + alarm.path("metric_name").asText());
        }
        assertThat(metrics)
                .contains(
                        "AWS/SQS/ApproximateNumberOfMessagesVisible",
                        "AWS/Lambda/Errors",
                        "AWS/SQS/ApproximateAgeOfOldestMessage",
                        EmfMeterRegistry.NAMESPACE + "/" + Meters.START_LATENESS);
        assertThat(contract.laneAlarms())
                .as("every lane's dead-letter queue and oldest message are watched")
                .isEmpty();
    }
}
